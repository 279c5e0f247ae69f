import { migrate, PlatformMetrics } from '@cip/shared/runtime';
import { describeWhenConfigured, freshDatabase, waitFor } from '@cip/shared/testing';
import { Client, Pool } from 'pg';
import { testEvent } from '../contract/event-store.contract';
import type { RecordedEvent, StoreSubscription } from '../event-store.port';
import { PostgresEventStore, type PostgresEventStoreOptions } from './postgres-event-store';
import { EVENT_STORE_COMPONENT, TAKE_APPEND_LOCK } from './postgres-event-store-schema';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records what a subscription hands over, in order. */
function record(store: PostgresEventStore, after: number, batchSize?: number) {
  const seen: RecordedEvent[] = [];
  const subscription: StoreSubscription = store.subscribeToAll({
    after,
    batchSize,
    onEvents: async (events) => {
      seen.push(...events);
    },
  });
  return { seen, subscription };
}

describeWhenConfigured('DATABASE_URL', 'PostgreSQL event store', (serverUrl) => {
  jest.setTimeout(60_000);
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const opened: PostgresEventStore[] = [];
  /** A store as another process would open it: its own pool, listener and group commit. */
  const open = async (options: Partial<PostgresEventStoreOptions> = {}) => {
    const store = await PostgresEventStore.open({
      name: `postgres:int-${opened.length}`,
      connectionString: database.url,
      pollIntervalMs: 100,
      ...options,
    });
    opened.push(store);
    return store;
  };

  beforeAll(async () => {
    database = await freshDatabase(serverUrl, 'cip_es_int');
  });
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await database?.drop();
  });

  it("exposes its database's oldest open transaction as a Prometheus gauge, read at each scrape", async () => {
    const store = await open();
    const metrics = new PlatformMetrics(false);
    const unwatch = metrics.watchPostgresTransactions(store);
    metrics.watchPostgresTransactions({
      name: 'postgres:unreachable',
      oldestOpenTransactionAgeMs: () => Promise.reject(new Error('connection refused')),
    });
    const scrape = async (name = store.name) => {
      const text = await metrics.registry.metrics();
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`postgres_oldest_transaction_age_seconds{store="${name}"}`));
      return line === undefined ? undefined : Number(line.split(' ').pop());
    };
    expect(await scrape()).toBeLessThan(1);
    // A session that wrote and stays open (an xid, as an append's transaction or a migration has).
    const held = new Client({ connectionString: database.url });
    await held.connect();
    try {
      await held.query('BEGIN');
      await held.query('SELECT pg_current_xact_id()');
      await sleep(1_500);
      const age = await scrape();
      expect(age).toBeGreaterThanOrEqual(1.4);
      expect(age).toBeLessThan(30);
      await sleep(500);
      expect(await scrape()).toBeGreaterThan(age as number); // collected again, not a value kept
      await held.query('COMMIT');
      expect(await scrape()).toBeLessThan(1);
    } finally {
      await held.end();
    }
    // A store that cannot answer has no value rather than a stale one; an unwatched one disappears.
    expect(await scrape('postgres:unreachable')).toBeUndefined();
    unwatch();
    expect(await scrape()).toBeUndefined();
  });

  it('never lets a subscriber pass an append still open, and delivers it after its commit, before what followed', async () => {
    const store = await open();
    const other = await open();
    const before = await store.headPosition();
    const local = record(store, before, 100);
    const remote = record(other, before, 37);
    // A transaction that took the append lock and inserted, as an append does, and is not committed yet.
    const held = new Client({ connectionString: database.url });
    await held.connect();
    try {
      await held.query('BEGIN');
      await held.query(TAKE_APPEND_LOCK);
      const heldEvent = testEvent('Held');
      await held.query(
        `INSERT INTO cip_events (position, stream_id, revision, event_id, type, data, metadata)
         SELECT COALESCE(max(position), 0) + 1, 'hld-1', 0, $1, 'Held', '{}', $2 FROM cip_events`,
        [heldEvent.metadata.eventId, JSON.stringify(heldEvent.metadata)],
      );
      // 1,000 appends after it, from two processes: they queue behind it and none is acknowledged early.
      let acknowledged = 0;
      const later = Array.from({ length: 1_000 }, (_, i) =>
        (i % 2 ? store : other).append(`lat-${i % 40}`, [testEvent('Later', { i })]).then((result) => {
          acknowledged++;
          return result;
        }),
      );
      await sleep(600);
      expect(acknowledged).toBe(0);
      expect(local.seen).toEqual([]);
      expect(remote.seen).toEqual([]);
      expect(await store.headPosition()).toBe(before);
      // The stall is visible: the open transaction's age.
      expect(await store.oldestOpenTransactionAgeMs()).toBeGreaterThanOrEqual(500);

      await held.query('COMMIT');
      const results = await Promise.all(later);
      for (const { seen } of [local, remote]) {
        await waitFor(() => seen.length === 1_001, { what: 'every event delivered after the commit' });
        expect(seen[0].type).toBe('Held');
        expect(seen.map((e) => e.position)).toEqual(Array.from({ length: 1_001 }, (_, i) => before + 1 + i));
      }
      expect(Math.min(...results.map((r) => r.position))).toBe(before + 2);
      expect(await store.oldestOpenTransactionAgeMs()).toBeLessThan(500);
    } finally {
      await held.end();
      await local.subscription.stop();
      await remote.subscription.stop();
    }
  });

  it('hands every subscriber every acknowledged event exactly once, in one order, under many concurrent committers', async () => {
    const processes = await Promise.all(
      [1, 2, 3, 4].map((n) => open({ name: `postgres:int-cnc-${n}`, poolSize: 3 })),
    );
    const before = await processes[0].headPosition();
    const subscribers = [record(processes[0], before, 7), record(processes[2], before, 500)];
    const acknowledged: string[] = [];
    // The pool size holds under load: never more connections of one process than its poolSize.
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    let busiestPool = 0;
    const sampling = setInterval(() => {
      admin
        .query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
          `cip:${processes[1].name}`,
        ])
        .then(({ rows }) => (busiestPool = Math.max(busiestPool, rows[0].n)))
        .catch(() => undefined);
    }, 20);
    // 4 processes × 16 writers × 40 appends, each writer on its own stream with exact expected revisions,
    // every fifth append an appendMany with a second stream.
    await Promise.all(
      processes.flatMap((store, p) =>
        Array.from({ length: 16 }, async (_, w) => {
          const stream = `cnc-${p}-${w}`;
          for (let n = 0; n < 40; n++) {
            const event = testEvent('Counted', { p, w, n });
            if (n % 5 === 4) {
              const side = testEvent('Noted', { p, w, n });
              await store.appendMany([
                { streamId: stream, events: [event], expectedRevision: n - 1 },
                { streamId: `sid-${p}-${w}-${n}`, events: [side], expectedRevision: 'no_stream' },
              ]);
              acknowledged.push(event.metadata.eventId, side.metadata.eventId);
            } else {
              await store.append(stream, [event], { expectedRevision: n === 0 ? 'no_stream' : n - 1 });
              acknowledged.push(event.metadata.eventId);
            }
          }
        }),
      ),
    );
    clearInterval(sampling);
    await admin.end();
    // A subscriber that starts now catches up over the same log.
    subscribers.push(record(processes[3], before, 100));
    const total = 4 * 16 * 48;
    expect(acknowledged).toHaveLength(total);
    const log = await processes[1].readAll({ after: before, maxCount: 100_000 });
    expect(log.map((e) => e.position)).toEqual(Array.from({ length: total }, (_, i) => before + 1 + i));
    expect(new Set(log.map((e) => e.metadata.eventId))).toEqual(new Set(acknowledged));
    for (const { seen, subscription } of subscribers) {
      await waitFor(() => seen.length >= total, { what: 'every subscriber to reach the head' });
      await sleep(200);
      expect(seen.map((e) => e.metadata.eventId)).toEqual(log.map((e) => e.metadata.eventId));
      await subscription.stop();
    }
    for (let p = 0; p < 4; p++) {
      expect((await processes[0].readStream(`cnc-${p}-3`)).map((e) => e.revision)).toEqual(
        Array.from({ length: 40 }, (_, n) => n),
      );
    }
    expect(busiestPool).toBeLessThanOrEqual(3);
  });

  it('reads a category through its index, in log order', async () => {
    const store = await open();
    const before = await store.headPosition();
    await store.append('ctg-a', [testEvent('A1')]);
    await store.append('oth-a', [testEvent('O1')]);
    await store.append('ctg-b', [testEvent('B1'), testEvent('B2')]);
    const read = await store.readCategory('ctg', { after: before });
    expect(read.map((e) => e.type)).toEqual(['A1', 'B1', 'B2']);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query(
        "EXPLAIN SELECT * FROM cip_events WHERE category = 'ctg' AND position > 0 ORDER BY position LIMIT 10",
      );
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/cip_events_category/);
    } finally {
      await client.end();
    }
  });

  it("wakes a subscriber on another process's commit by NOTIFY, and again after its listener's connection was cut", async () => {
    // Polling once a minute: only a notification can deliver within the waits below.
    const subscriber = await open({ name: 'postgres:int-listener', pollIntervalMs: 60_000 });
    const writer = await open();
    const before = await writer.headPosition();
    const { seen, subscription } = record(subscriber, before);
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    const listeners = async () =>
      (
        await admin.query(
          `SELECT pid FROM pg_stat_activity WHERE application_name = 'cip:postgres:int-listener:listener'`,
        )
      ).rows.map((r) => r.pid as number);
    try {
      await waitFor(async () => (await listeners()).length === 1, { what: 'the listener to connect' });
      await sleep(100);
      await writer.append('ntf-1', [testEvent('First')]);
      await waitFor(() => seen.length === 1, {
        what: 'the notification to wake the subscriber',
        timeoutMs: 5_000,
      });

      const [pid] = await listeners();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor(async () => (await listeners()).some((p) => p !== pid), {
        what: 'the listener to reconnect',
        timeoutMs: 10_000,
      });
      await sleep(100);
      await writer.append('ntf-1', [testEvent('Second')]);
      await waitFor(() => seen.length === 2, {
        what: 'the reconnected listener to wake it',
        timeoutMs: 5_000,
      });
      expect(seen.map((e) => e.type)).toEqual(['First', 'Second']);
    } finally {
      await admin.end();
      await subscription.stop();
    }
  });

  it('migrates once when several processes start at once; the others wait and find it done', async () => {
    const fresh = await freshDatabase(serverUrl, 'cip_es_migrate');
    const pools = [1, 2, 3].map(() => {
      const pool = new Pool({ connectionString: fresh.url, max: 1 });
      // The database is dropped at the end (its connections terminated): an idle client's error is expected.
      pool.on('error', () => undefined);
      return pool;
    });
    try {
      const slow = [
        { version: 1, description: 'slow', sql: 'SELECT pg_sleep(0.3); CREATE TABLE slow_one (id int)' },
      ];
      const ran = await Promise.all(pools.map((pool) => migrate(pool, 'slow-component', slow)));
      expect(ran.map((r) => r.length).sort()).toEqual([0, 0, 1]);

      const stores = await Promise.all(
        [1, 2, 3].map((n) =>
          PostgresEventStore.open({ name: `postgres:mig-${n}`, connectionString: fresh.url }),
        ),
      );
      await stores[0].append('mig-1', [testEvent('Migrated')]);
      expect(await stores[2].readStream('mig-1')).toHaveLength(1);
      await Promise.all(stores.map((s) => s.close()));
      const { rows } = await pools[0].query('SELECT component, version FROM schema_migrations ORDER BY 1, 2');
      expect(rows).toEqual([
        { component: EVENT_STORE_COMPONENT, version: 1 },
        { component: 'slow-component', version: 1 },
      ]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await fresh.drop();
    }
  });
});
