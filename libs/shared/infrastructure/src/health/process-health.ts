import type { ReadDocument, ReadStore } from '@cip/shared/read-store';
import type { Logger, PlatformMetrics } from '@cip/shared/runtime';
import { hostname } from 'node:os';

/**
 * What one process of the platform says about itself, from its own metrics: its consumer groups' lag, the
 * `/v1` API's 5xx answers it gave (the gateway's, or the one-process platform's), and its webhook backlog
 * (the process delivering webhooks). Every process writes its report to the control scope's read store
 * every few seconds (`ProcessHealthReporter`), so the dashboard's health page shows the whole platform
 * whichever process serves it: one process embedded, a dozen split, any number of replicas.
 */
export interface ProcessHealthReport extends ReadDocument {
  /** `<process>@<host>:<pid>`: one document per running process. */
  id: string;
  /** The app it runs: `platform` (one process), a service's name, `gateway`, `dashboard`, `relay`. */
  process: string;
  host: string;
  pid: number;
  startedAt: string;
  /** When it last reported (wall-clock time: it says whether the process is alive, not the test clock). */
  reportedAt: string;
  consumers: { scope: string; group: string; lagEvents: number }[];
  serverErrors: {
    lastHour: number;
    last: { at: string; method: string; route: string; status: number; requestId: string }[];
  };
  /** Per environment; null where the process delivers no webhooks. */
  webhookBacklog: { environment: string; pending: number }[] | null;
}

/** The control scope's collection of the reports (not derived from the log: no projection rebuilds it). */
export const PROCESS_HEALTH_COLLECTION = 'process_health';
/** How often each process reports. */
export const PROCESS_HEALTH_INTERVAL_MS = 5_000;
/** A report older than this is a process that stopped (killed, hung, cut off from the store). */
export const PROCESS_HEALTH_STALE_MS = 3 * PROCESS_HEALTH_INTERVAL_MS;
/** The report of a process not seen for this long is dropped (a graceful stop drops its own at once). */
export const PROCESS_HEALTH_FORGET_MS = 60 * 60 * 1000;

/** This process's report now, from its metrics. */
export async function processHealthReport(
  metrics: PlatformMetrics,
  self: { id: string; process: string; startedAt: string },
  now: Date,
): Promise<ProcessHealthReport> {
  const lag = await metrics.consumerLag.get();
  const backlog = metrics.webhookBacklogSource ? await metrics.webhookBacklog.get() : null;
  return {
    ...self,
    host: hostname(),
    pid: process.pid,
    createdAt: self.startedAt,
    updatedAt: now.toISOString(),
    reportedAt: now.toISOString(),
    consumers: lag.values
      .map(({ labels, value }) => ({
        // The gauge's store label is `<driver>:<scope>`.
        scope: String(labels.store ?? '').replace(/^[a-z]+:/, ''),
        group: String(labels.group ?? ''),
        lagEvents: value,
      }))
      .sort((a, b) => a.scope.localeCompare(b.scope) || a.group.localeCompare(b.group)),
    serverErrors: metrics.recentServerErrors.summary(now),
    webhookBacklog:
      backlog?.values.map(({ labels, value }) => ({
        environment: String(labels.environment),
        pending: value,
      })) ?? null,
  };
}

/**
 * Writes this process's report now, then every PROCESS_HEALTH_INTERVAL_MS, and drops the reports of processes
 * gone for PROCESS_HEALTH_FORGET_MS; `stop` removes its own (a process stopped on purpose is not a process
 * that died). A failed write is logged and tried again at the next tick: health reports never fail the process.
 */
export class ProcessHealthReporter {
  readonly self: { id: string; process: string; startedAt: string };
  private timer: NodeJS.Timeout | null = null;
  private version = 0;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    process: string,
    private readonly metrics: PlatformMetrics,
    private readonly store: () => ReadStore,
    private readonly logger: Logger,
  ) {
    this.self = {
      id: `${process}@${hostname()}:${globalThis.process.pid}`,
      process,
      startedAt: new Date().toISOString(),
    };
  }

  /** This process's report as of now (the health page's own process: fresher than its stored one). */
  current(): Promise<ProcessHealthReport> {
    return processHealthReport(this.metrics, this.self, new Date());
  }

  /** Every stored report, this process's included. */
  async all(): Promise<ProcessHealthReport[]> {
    return this.store().all<ProcessHealthReport>(PROCESS_HEALTH_COLLECTION);
  }

  start(): void {
    if (this.timer) return;
    this.tick();
    this.timer = setInterval(() => this.tick(), PROCESS_HEALTH_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.writing;
    await this.write([{ id: this.self.id, doc: null, version: this.nextVersion() }]);
  }

  private tick(): void {
    // One report at a time, in order.
    this.writing = this.writing.then(() =>
      this.report().catch((error) =>
        this.logger.warn({ err: error }, 'could not report this process health'),
      ),
    );
  }

  private async report(): Promise<void> {
    const report = await this.current();
    const forgetBefore = Date.now() - PROCESS_HEALTH_FORGET_MS;
    const gone = (await this.all().catch(() => [])).filter(
      (other) => other.id !== this.self.id && Date.parse(other.reportedAt) < forgetBefore,
    );
    const tombstones = [];
    for (const other of gone) {
      // Just above its last version: a process started again under the same id (a container's pid 1 on
      // the same pod) writes its wall clock, far above.
      const stored = await this.store().getVersioned(PROCESS_HEALTH_COLLECTION, other.id);
      if (stored?.doc) tombstones.push({ id: other.id, doc: null, version: stored.version + 1 });
    }
    await this.write([{ id: report.id, doc: report, version: this.nextVersion() }, ...tombstones]);
  }

  private async write(writes: Parameters<ReadStore['upsertMany']>[1]): Promise<void> {
    try {
      await this.store().upsertMany(PROCESS_HEALTH_COLLECTION, writes);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not write this process health report');
    }
  }

  /** Versions of this process's document: its wall clock in milliseconds, never going back. */
  private nextVersion(): number {
    this.version = Math.max(this.version + 1, Date.now());
    return this.version;
  }
}
