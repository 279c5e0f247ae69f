import type { ConsumerHost } from '../consumers';
import { STORE_SCOPES, type Infrastructure } from '../infrastructure';

/**
 * What one dependency of the process reports: `ready: false` takes the process out of service (503 on
 * /health); anything else is detail for the operator (a lag, an open breaker). Never an error message:
 * /health is open without a key, and a handler's error may quote the data it failed on (the logs have it).
 */
export interface CheckResult {
  ready: boolean;
  [detail: string]: unknown;
}

export type ReadinessCheck = () => CheckResult | Promise<CheckResult>;

export interface ReadinessReport {
  /** `ok` (200) or `unavailable` (503): the field load balancers and the launcher read. */
  status: 'ok' | 'unavailable';
  /** The checks that are not ready, by name (`consumer:sandbox/users-read-model`, `store:control`). */
  notReady: string[];
  checks: Record<string, CheckResult>;
}

/** A check that does not answer within this bound is not ready: a hung connection must not hang probes. */
const CHECK_TIMEOUT_MS = 2_000;
/** A stream nobody writes: reading it is the cheapest read an event store answers (an empty array). */
const PROBE_STREAM = 'healthprobe-readiness';
const PROBE_COLLECTION = 'system_health';

/**
 * The readiness of a process: the named checks its modules register (the stores of each scope, each
 * consumer group it runs, the relay loops, the breakers of the services it calls), run in parallel on
 * every /health. Liveness (/health/live) is separate: it only says the process answers.
 */
export class Readiness {
  private readonly sources = new Map<string, () => Promise<Record<string, CheckResult>>>();

  register(name: string, check: ReadinessCheck): void {
    this.registerAll(name, async () => ({ [name]: await check() }));
  }

  /**
   * Checks whose names are known only when asked (the consumer groups running now): `source` answers them
   * all; if it throws or hangs, `name` is reported not ready in their place.
   */
  registerAll(
    name: string,
    source: () => Record<string, CheckResult> | Promise<Record<string, CheckResult>>,
  ): void {
    if (this.sources.has(name)) throw new Error(`Readiness check ${name} is registered twice`);
    this.sources.set(name, async () => source());
  }

  async report(timeoutMs = CHECK_TIMEOUT_MS): Promise<ReadinessReport> {
    const answers = await Promise.all(
      [...this.sources].map(async ([name, source]) => {
        const answer = await bounded(source, timeoutMs);
        return 'failed' in answer ? { [name]: answer.failed } : answer.results;
      }),
    );
    const checks: Record<string, CheckResult> = {};
    for (const [name, result] of answers
      .flatMap((answer) => Object.entries(answer))
      .sort(([a], [b]) => a.localeCompare(b)))
      checks[name] = result;
    const notReady = Object.keys(checks).filter((name) => !checks[name].ready);
    return { status: notReady.length ? 'unavailable' : 'ok', notReady, checks };
  }
}

async function bounded(
  source: () => Promise<Record<string, CheckResult>>,
  timeoutMs: number,
): Promise<{ results: Record<string, CheckResult> } | { failed: CheckResult }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      source().then((results) => ({ results })),
      new Promise<{ failed: CheckResult }>((resolve) => {
        timer = setTimeout(
          () => resolve({ failed: { ready: false, reason: `no answer in ${timeoutMs} ms` } }),
          timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    return { failed: { ready: false, reason: 'check failed', error: errorName(error) } };
  } finally {
    clearTimeout(timer);
  }
}

/** The class or code of an error, never its message (see CheckResult). */
export const errorName = (error: unknown): string =>
  ((error as { code?: unknown } | null)?.code as string | undefined) ??
  (error instanceof Error ? error.name : typeof error);

/**
 * One check per store scope: a read of the event store (a stream nobody writes) and of the read store
 * (one document by id), the cheapest reads each adapter answers, SQLite as well as EventStoreDB and MongoDB.
 */
export function registerStoreChecks(readiness: Readiness, infrastructure: Infrastructure): void {
  for (const scope of STORE_SCOPES) {
    readiness.register(`store:${scope}`, async () => {
      const ports = infrastructure.scope(scope);
      const [events, readModels] = await Promise.allSettled([
        ports.storedEventStore.readStream(PROBE_STREAM, { maxCount: 1 }),
        ports.readStore.get(PROBE_COLLECTION, 'probe'),
      ]);
      const result: CheckResult = {
        ready: events.status === 'fulfilled' && readModels.status === 'fulfilled',
        driver: infrastructure.driver,
      };
      if (events.status === 'rejected') result.eventStore = errorName(events.reason);
      if (readModels.status === 'rejected') result.readStore = errorName(readModels.reason);
      return result;
    });
  }
}

/** One check per consumer group this process runs: `consumer:<scope>/<group>`. */
export function registerConsumerChecks(readiness: Readiness, consumers: ConsumerHost): void {
  readiness.registerAll('consumers', () =>
    Object.fromEntries(
      consumers
        .health()
        .map(({ scope, group, state, consecutiveFailures }) => [
          `consumer:${scope}/${group}`,
          { ready: state === 'running', state, consecutiveFailures },
        ]),
    ),
  );
}
