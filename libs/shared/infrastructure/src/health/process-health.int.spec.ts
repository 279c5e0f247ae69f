import { ReadStore, SqliteReadStore } from '@cip/shared/read-store';
import { createLogger, openSqliteDatabase, PlatformMetrics, SqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PROCESS_HEALTH_COLLECTION,
  PROCESS_HEALTH_FORGET_MS,
  ProcessHealthReport,
  ProcessHealthReporter,
} from './process-health';
import { waitFor } from '@cip/shared/testing';

describe('ProcessHealthReporter: each process writes its health to the control store', () => {
  let dir: string;
  let db: SqliteDatabase;
  let store: ReadStore;
  const logger = createLogger('silent');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'process-health-'));
    db = openSqliteDatabase(join(dir, 'control.sqlite'));
    store = new SqliteReadStore(db);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const stored = () => store.all<ProcessHealthReport>(PROCESS_HEALTH_COLLECTION);

  it('reports its consumer lag, 5xx answers and webhook backlog from its metrics, and removes its report when it stops', async () => {
    const metrics = new PlatformMetrics(false);
    metrics.consumerLag.set({ store: 'embedded:sandbox', group: 'users.projection' }, 7);
    metrics.recentServerErrors.record({
      at: new Date().toISOString(),
      method: 'POST',
      route: '/v1/users',
      status: 503,
      requestId: 'req_1',
    });
    let pending = 3;
    metrics.webhookBacklogSource = { environments: ['sandbox', 'production'], pending: () => pending };
    const reporter = new ProcessHealthReporter('webhooks', metrics, () => store, logger);
    reporter.start();
    await waitFor(async () => (await stored()).length === 1, { what: 'the first report' });
    const [report] = await stored();
    expect(report).toMatchObject({
      id: reporter.self.id,
      process: 'webhooks',
      pid: process.pid,
      consumers: [{ scope: 'sandbox', group: 'users.projection', lagEvents: 7 }],
      serverErrors: { lastHour: 1, last: [{ route: '/v1/users', status: 503, requestId: 'req_1' }] },
      webhookBacklog: [
        { environment: 'sandbox', pending: 3 },
        { environment: 'production', pending: 3 },
      ],
    });
    pending = 0;
    expect((await reporter.current()).webhookBacklog).toEqual([
      { environment: 'sandbox', pending: 0 },
      { environment: 'production', pending: 0 },
    ]);
    await reporter.stop();
    expect(await stored()).toEqual([]);
  });

  it('reports no webhook backlog where no webhooks are delivered', async () => {
    const reporter = new ProcessHealthReporter('gateway', new PlatformMetrics(false), () => store, logger);
    expect((await reporter.current()).webhookBacklog).toBeNull();
  });

  it("drops the report of a process gone for an hour, and keeps a recent one's", async () => {
    const old = (id: string, ageMs: number): ProcessHealthReport => {
      const at = new Date(Date.now() - ageMs).toISOString();
      return {
        id,
        process: 'users',
        host: 'h',
        pid: 1,
        createdAt: at,
        updatedAt: at,
        startedAt: at,
        reportedAt: at,
        consumers: [],
        serverErrors: { lastHour: 0, last: [] },
        webhookBacklog: null,
      };
    };
    const gone = old('users@h:1', PROCESS_HEALTH_FORGET_MS + 60_000);
    const killed = old('users@h:2', 60_000);
    await store.upsertMany(PROCESS_HEALTH_COLLECTION, [
      { id: gone.id, doc: gone, version: Date.parse(gone.reportedAt) },
      { id: killed.id, doc: killed, version: Date.parse(killed.reportedAt) },
    ]);
    const reporter = new ProcessHealthReporter('kyc', new PlatformMetrics(false), () => store, logger);
    reporter.start();
    await waitFor(async () => (await stored()).some((r) => r.process === 'kyc'), { what: 'the report' });
    expect((await stored()).map((r) => r.id).sort()).toEqual([killed.id, reporter.self.id].sort());
    await reporter.stop();
  });

  it('never fails its process when the store does: it logs and reports again at the next tick', async () => {
    const warnings: string[] = [];
    const failing = {
      upsertMany: () => Promise.reject(new Error('store down')),
      all: () => Promise.reject(new Error('store down')),
    } as unknown as ReadStore;
    const reporter = new ProcessHealthReporter('users', new PlatformMetrics(false), () => failing, {
      ...logger,
      warn: (_: unknown, message: string) => warnings.push(message),
    } as never);
    reporter.start();
    await waitFor(() => warnings.length >= 1, { what: 'a warning' });
    await expect(reporter.stop()).resolves.toBeUndefined();
    expect(warnings[0]).toBe('could not write this process health report');
  });
});
