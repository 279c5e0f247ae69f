import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { eventStoreContract } from '../contract/event-store.contract';
import { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite-event-store';

describe('event store contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-es-'));
  let db: SqliteDatabase;
  eventStoreContract({
    appendMany: true,
    open: async () => {
      db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
      return new SqliteEventStore(db, { name: 'sqlite:contract', pollIntervalMs: 20 });
    },
    cleanup: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});

/**
 * A store on a fresh file for the tests of one describe block: opened before them (after `prepare` ran on
 * the connection) and closed, its folder removed, after them.
 */
function storeOnFreshFile(
  name: string,
  { prepare, ...options }: Partial<SqliteEventStoreOptions> & { prepare?: (db: SqliteDatabase) => void } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), `cip-es-${name}-`));
  const opened = {
    dir,
    file: join(dir, 'sandbox.sqlite'),
    db: undefined as unknown as SqliteDatabase,
    store: undefined as unknown as SqliteEventStore,
  };
  beforeAll(() => {
    opened.db = openSqliteDatabase(opened.file);
    prepare?.(opened.db);
    opened.store = new SqliteEventStore(opened.db, {
      name: `sqlite:${name}`,
      pollIntervalMs: 20,
      ...options,
    });
  });
  afterAll(async () => {
    await opened.store.close();
    opened.db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return opened;
}

describe('SQLite event store: subscriptions at different positions share the recently read events', () => {
  const t = storeOnFreshFile('tail');

  const event = (n: number) => ({
    type: 'Counted',
    data: { n },
    metadata: { eventId: `e-${n}`, occurredAt: '2026-11-23T10:00:00.000Z', schemaVersion: 1 },
  });
  /** Appends `count` events, each on a stream of its own group of ten; resolves once all are committed. */
  const appendMany = (from: number, count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        t.store.append(`cnt-${Math.floor((from + i) / 10)}`, [event(from + i)]),
      ),
    );
  /** Everything after `after` in reads of `batch`, as a subscription reads: the n of each event, in order. */
  const readFrom = (after: number, batch: number) => {
    const seen: number[] = [];
    for (let read = t.store.readAllSync(after, batch); read.length;) {
      seen.push(...read.map((e) => (e.data as { n: number }).n));
      read = t.store.readAllSync(read[read.length - 1].position, batch);
    }
    return seen;
  };
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
  // Positions count from 1: event n is at position n + 1, so the events after position p are n >= p.

  it('gives every reader every event after its position exactly once, in order, however the reads interleave', async () => {
    await appendMany(0, 3_000);
    // A reader at the head, one far behind, one in between; the log grows between their reads.
    expect(t.store.readAllSync(2_990, 500).map((e) => (e.data as { n: number }).n)).toEqual(
      range(2_990, 3_000),
    );
    await appendMany(3_000, 4_000);
    expect(readFrom(2_999, 137)).toEqual(range(2_999, 7_000));
    expect(readFrom(0, 500)).toEqual(range(0, 7_000));
    expect(readFrom(6_500, 500)).toEqual(range(6_500, 7_000));
    await appendMany(7_000, 10);
    expect(readFrom(6_990, 3)).toEqual(range(6_990, 7_010));
    expect(readFrom(7_010, 500)).toEqual([]);
  });
});

describe('SQLite event store: other statements on its connection ride on its group commit', () => {
  /** The number of appends of each group commit. */
  const commits: number[] = [];
  const t = storeOnFreshFile('alongside', {
    prepare: (db) => db.exec('CREATE TABLE outcomes (key TEXT PRIMARY KEY)'),
    onCommit: (appends) => commits.push(appends),
  });
  const event = (eventId: string) => ({
    type: 'Counted',
    data: {},
    metadata: { eventId, occurredAt: '2026-11-23T10:00:00.000Z', schemaVersion: 1 },
  });
  const insert = (key: string) => () => void t.db.prepare('INSERT INTO outcomes (key) VALUES (?)').run(key);
  const keys = () => t.db.prepare('SELECT key FROM outcomes ORDER BY key').pluck().all();

  it('writes them in the same transaction as the appends of the turn; one that throws fails alone', async () => {
    const results = await Promise.allSettled([
      t.store.append('cnt-a', [event('e-a')], { expectedRevision: 'no_stream' }),
      t.store.commitAlongside(insert('one')),
      t.store.commitAlongside(insert('one')),
      t.store.commitAlongside(insert('two')),
      t.store.append('cnt-b', [event('e-b')], { expectedRevision: 'no_stream' }),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(keys()).toEqual(['one', 'two']);
    expect(commits).toEqual([2]);
    expect((await t.store.readStream('cnt-b')).length).toBe(1);
  });
});

describe("SQLite event store: a witness of the appends' correlation ids, in their transaction", () => {
  const t = storeOnFreshFile('witness', {
    prepare: (db) => db.exec('CREATE TABLE runs (correlation_id TEXT PRIMARY KEY)'),
  });
  const event = (correlationId: string) => ({
    type: 'Counted',
    data: {},
    metadata: {
      eventId: correlationId,
      occurredAt: '2026-11-27T10:00:00.000Z',
      correlationId,
      schemaVersion: 1,
    },
  });
  const runs = () => t.db.prepare('SELECT correlation_id FROM runs ORDER BY 1').pluck().all();

  it('is told the ids of the appends written, not of those refused, and a witness that throws fails the commit', async () => {
    let fail = false;
    t.store.witnessAppends((ids) => {
      if (fail) throw new Error('the witness could not write');
      for (const id of ids) t.db.prepare('INSERT INTO runs VALUES (?)').run(id);
    });
    await t.store.append('cnt-w', [event('req-1')], { expectedRevision: 'no_stream' });
    const results = await Promise.allSettled([
      t.store.append('cnt-w', [event('req-2')], { expectedRevision: 'no_stream' }),
      t.store.appendMany([
        {
          streamId: 'cnt-x',
          events: [
            event('req-3'),
            { ...event('req-3'), metadata: { ...event('req-3').metadata, eventId: 'req-3b' } },
          ],
        },
      ]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(runs()).toEqual(['req-1', 'req-3']);

    fail = true;
    await expect(t.store.append('cnt-y', [event('req-4')])).rejects.toThrow('the witness could not write');
    expect(await t.store.readStream('cnt-y')).toEqual([]);
    expect(runs()).toEqual(['req-1', 'req-3']);
  });
});

describe('SQLite event store: another process writing to the same file', () => {
  const t = storeOnFreshFile('busy');

  it("waits for the other connection's write transaction to end instead of failing the appends (busy_timeout)", async () => {
    // Another connection (as the CLI's would be) holds the write lock, then commits a moment later on its own:
    // this thread cannot signal it while it waits on the lock, so the release is on the worker's timer.
    const other = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const db = new (require(workerData.driver))(workerData.file);
       db.exec('BEGIN IMMEDIATE');
       parentPort.postMessage('locked');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, 100);`,
      { eval: true, workerData: { file: t.file, driver: require.resolve('better-sqlite3') } },
    );
    const exited = new Promise((resolve) => other.once('exit', resolve));
    await new Promise((resolve) => other.once('message', resolve));
    const event = {
      type: 'Counted',
      data: {},
      metadata: { eventId: 'e-busy', occurredAt: '2026-11-23T10:00:00.000Z', schemaVersion: 1 },
    };
    await expect(
      t.store.append('cnt-busy', [event], { expectedRevision: 'no_stream' }),
    ).resolves.toMatchObject({
      nextRevision: 0,
    });
    expect((await t.store.readStream('cnt-busy')).map((e) => e.metadata.eventId)).toEqual(['e-busy']);
    await exited;
  });
});

describe('SQLite event store: the WAL grown ahead of the commits', () => {
  const t = storeOnFreshFile('wal');
  const event = (n: number) => ({
    type: 'Counted',
    data: { n, padding: 'x'.repeat(2_000) },
    metadata: { eventId: `e-${n}`, occurredAt: '2026-11-23T10:00:00.000Z', schemaVersion: 1 },
  });

  it('recovers every acknowledged append from the files as a killed process leaves them (zeros after the last frame)', async () => {
    for (let n = 0; n < 300; n++) {
      await t.store.append(`cnt-${n % 7}`, [event(n)]);
    }
    // The state of the disk if the process died now: the database and its WAL, no shared-memory index
    // (SQLite rebuilds it from the WAL, reading frames up to the first one that does not check out).
    const crashed = join(t.dir, 'crashed.sqlite');
    copyFileSync(t.file, crashed);
    copyFileSync(`${t.file}-wal`, `${crashed}-wal`);
    const walTail = readFileSync(`${t.file}-wal`).subarray(-4096);
    const reopened = openSqliteDatabase(crashed);
    try {
      const recovered = new SqliteEventStore(reopened, { name: 'sqlite:wal-recovered' });
      const events = await recovered.readAll({ maxCount: 1_000 });
      expect(events.map((e) => (e.data as { n: number }).n)).toEqual(
        Array.from({ length: 300 }, (_, n) => n),
      );
      // The WAL was grown past its frames: it ends with zeros, not with the last frame's page.
      expect(walTail.every((byte) => byte === 0)).toBe(true);
      await expect(recovered.append('cnt-after', [event(300)])).resolves.toMatchObject({ nextRevision: 0 });
      await recovered.close();
    } finally {
      reopened.close();
    }
  });

  it('never writes its zeros over frames another connection appended past the end it last saw', async () => {
    const walBytes = () => statSync(`${t.file}-wal`).size;
    await t.store.append('cnt-own', [event(1_000)]);
    const seen = walBytes();
    // Another connection on the file (the CLI's, a service of the split topology) commits ~3 MiB of frames:
    // the WAL's end moves past the one this store last looked at, without this store knowing.
    const other = openSqliteDatabase(t.file);
    try {
      const insert = other.prepare(
        'INSERT INTO events (stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?)',
      );
      other.transaction(() => {
        for (let n = 0; n < 1_500; n++) {
          insert.run('cnt-other', n, 'Counted', JSON.stringify(event(2_000 + n).data), '{"schemaVersion":1}');
        }
      })();
    } finally {
      other.close();
    }
    expect(walBytes()).toBeGreaterThan(seen + 2 * 1024 * 1024);
    for (let n = 0; n < 20; n++) await t.store.append('cnt-own', [event(1_001 + n)]);

    // Read back from the files as a killed process leaves them: every frame of both connections is there.
    const crashed = join(t.dir, 'crashed-after-other.sqlite');
    copyFileSync(t.file, crashed);
    copyFileSync(`${t.file}-wal`, `${crashed}-wal`);
    const reopened = openSqliteDatabase(crashed);
    try {
      expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
      const recovered = new SqliteEventStore(reopened, { name: 'sqlite:wal-after-other' });
      expect((await recovered.readStream('cnt-other')).length).toBe(1_500);
      expect((await recovered.readStream('cnt-own')).map((e) => (e.data as { n: number }).n)).toEqual(
        Array.from({ length: 21 }, (_, n) => 1_000 + n),
      );
      await recovered.close();
    } finally {
      reopened.close();
    }
  });
});
