import { SqliteEventStore } from '@cip/shared/eventing';
import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idempotencyStoreContract } from '../contract/idempotency-store.contract';
import { SqliteIdempotencyStore } from './sqlite-idempotency-store';

describe('idempotency store contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-idem-'));
  let db: SqliteDatabase;
  idempotencyStoreContract({
    open: async () => {
      db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
      return new SqliteIdempotencyStore(db);
    },
    cleanup: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});

describe.each([
  ['its own group commit', () => ({})],
  [
    "the event store's group commit",
    (db: SqliteDatabase) => {
      const events = new SqliteEventStore(db, { name: 'sqlite:idempotency' });
      return { commitAlongside: (write: () => void) => events.commitAlongside(write) };
    },
  ],
] as const)('SQLite idempotency store: claims in memory, outcomes through %s', (_, options) => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-idem-file-'));
  // The connection is closed with outcomes committed: nothing of the event store is left running.
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const response = { status: 201, headers: { location: '/v1/users/usr-1' }, body: '{"id":"usr-1"}' };
  const now = Date.UTC(2026, 0, 1);

  it('keeps a key in flight until its outcome is stored, and the stored outcome outlives the process', async () => {
    const file = join(dir, 'sandbox.sqlite');
    const db = openSqliteDatabase(file);
    const store = new SqliteIdempotencyStore(db, options(db));
    expect(await store.claim('k', now, 60_000)).toEqual({ claimed: true });
    const completing = Array.from({ length: 5 }, (_, i) =>
      store.complete(`other-${i}`, response, now + 1000),
    ).concat(store.complete('k', response, now + 86_400_000));
    expect((await store.claim('k', now, 60_000)).claimed).toBe(false);
    await Promise.all(completing);
    db.close();

    const reopened = openSqliteDatabase(file);
    try {
      expect(await new SqliteIdempotencyStore(reopened).claim('k', now + 1, 60_000)).toEqual({
        claimed: false,
        record: { state: 'completed', response, expiresAt: now + 86_400_000 },
      });
    } finally {
      reopened.close();
    }
  });
});

describe('SQLite idempotency store: a file written by an earlier version', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-idem-earlier-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const now = Date.UTC(2026, 0, 1);

  it('replays the outcomes of the earlier table and honours its in-flight rows until their lease passes', async () => {
    const file = join(dir, 'sandbox.sqlite');
    const earlier = openSqliteDatabase(file);
    earlier.exec(`
      CREATE TABLE idempotency_keys (
        key TEXT PRIMARY KEY, state TEXT NOT NULL, lease_until INTEGER, expires_at INTEGER,
        status INTEGER, headers TEXT, body TEXT
      ) WITHOUT ROWID;
    `);
    const insert = earlier.prepare('INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?, ?, ?)');
    insert.run(
      'done',
      'completed',
      null,
      now + 1000,
      201,
      '{"location":"/v1/users/usr-1"}',
      '{"id":"usr-1"}',
    );
    insert.run('running', 'in_flight', now + 500, null, null, null, null);
    earlier.close();

    const db = openSqliteDatabase(file);
    try {
      const store = new SqliteIdempotencyStore(db);
      expect(await store.claim('done', now, 60_000)).toEqual({
        claimed: false,
        record: {
          state: 'completed',
          expiresAt: now + 1000,
          response: { status: 201, headers: { location: '/v1/users/usr-1' }, body: '{"id":"usr-1"}' },
        },
      });
      expect(await store.claim('running', now, 60_000)).toEqual({
        claimed: false,
        record: { state: 'in_flight', leaseUntil: now + 500 },
      });
      expect(await store.claim('running', now + 500, 60_000)).toEqual({ claimed: true });
      expect(await store.claim('done', now + 1000, 60_000)).toEqual({ claimed: true });
    } finally {
      db.close();
    }
  });
});

describe("SQLite idempotency store: a tracked claim's run is recorded with its command's events", () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-idem-tracked-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const now = Date.UTC(2026, 0, 1);
  const day = 86_400_000;
  const response = { status: 201, headers: {}, body: '{"id":"crd-3"}' };
  const event = (correlationId: string) => ({
    type: 'CardCreated',
    data: {},
    metadata: {
      eventId: correlationId,
      occurredAt: new Date(now).toISOString(),
      correlationId,
      schemaVersion: 1,
    },
  });
  const open = (file: string) => {
    const db = openSqliteDatabase(file);
    const events = new SqliteEventStore(db, { name: 'sqlite:tracked' });
    const store = new SqliteIdempotencyStore(db, {
      commitAlongside: (write) => events.commitAlongside(write),
      witnessAppends: (witness) => events.witnessAppends(witness),
    });
    return { db, events, store };
  };

  it('after the process died between the events and the outcome, refuses to run the command again', async () => {
    const file = join(dir, 'sandbox.sqlite');
    const first = open(file);
    for (const [key, requestId] of [
      ['ran', 'req-1'],
      ['never-ran', 'req-2'],
      ['answered', 'req-3'],
    ]) {
      expect(await first.store.claim(key, now, 60_000)).toEqual({ claimed: true });
      first.store.track(key, requestId, now + day);
    }
    await first.events.append('crd-1', [event('req-1')]);
    await first.events.append('crd-3', [event('req-3')]);
    await first.store.complete('answered', response, now + day);
    // Still in flight in its process: an identical request is told to retry shortly, as before.
    expect(await first.store.claim('ran', now, 60_000)).toEqual({
      claimed: false,
      record: { state: 'in_flight', leaseUntil: now + 60_000 },
    });
    first.db.close(); // the kill: no outcome for 'ran' nor 'never-ran'

    const second = open(file);
    try {
      expect(await second.store.claim('ran', now + 1, 60_000)).toEqual({
        claimed: false,
        record: { state: 'outcome_lost' },
      });
      expect(await second.store.claim('answered', now + 1, 60_000)).toEqual({
        claimed: false,
        record: { state: 'completed', response, expiresAt: now + day },
      });
      expect(await second.store.claim('never-ran', now + 1, 60_000)).toEqual({ claimed: true });
      // Past the retention the key is free again, as an outcome's is.
      expect(await second.store.claim('ran', now + day, 60_000)).toEqual({ claimed: true });
      expect(await second.store.purgeExpired(now + day)).toBeGreaterThan(0);
    } finally {
      second.db.close();
    }
  });
});

describe('SQLite idempotency store: a run hosted for the gateway of another process (the split topology)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-idem-hosted-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const now = Date.UTC(2026, 0, 1);
  const day = 86_400_000;
  const event = (correlationId: string) => ({
    type: 'CardCreated',
    data: {},
    metadata: {
      eventId: correlationId,
      occurredAt: new Date(now).toISOString(),
      correlationId,
      schemaVersion: 1,
    },
  });
  /** One process on the shared file: the gateway (claims, outcomes) or a service (hosted runs, events). */
  const open = (file: string) => {
    const db = openSqliteDatabase(file);
    const events = new SqliteEventStore(db, { name: 'sqlite:hosted' });
    const store = new SqliteIdempotencyStore(db, {
      commitAlongside: (write) => events.commitAlongside(write),
      witnessAppends: (witness) => events.witnessAppends(witness),
    });
    return { db, events, store };
  };
  const run = (key: string, id: string) => ({ key, run: id, claimedAt: now, expiresAt: now + day });
  const done = (hosted: ReturnType<SqliteIdempotencyStore['hostRun']>) => {
    if ('refused' in hosted) throw new Error(`refused: ${hosted.refused}`);
    return hosted.done;
  };

  it("records the run with the service's events, where the restarted gateway finds it; never hosts a second run", async () => {
    const file = join(dir, 'sandbox.sqlite');
    const service = open(file);
    let gateway = open(file);
    try {
      for (const key of ['ran', 'never-ran']) {
        expect(await gateway.store.claim(key, now, 60_000)).toEqual({ claimed: true });
      }
      const ranDone = done(service.store.hostRun(run('ran', 'run-1'), 'req-ran'));
      const neverRanDone = done(service.store.hostRun(run('never-ran', 'run-2'), 'req-never-ran'));
      // The same run asked again (a service calling another context for it) is the same run.
      done(service.store.hostRun(run('ran', 'run-1'), 'req-ran'))();
      await service.events.append('crd-1', [event('req-ran')]);
      // The gateway dies here: neither outcome is stored. Its retry, sent while the first run still runs in
      // the service, is not run beside it.
      gateway.db.close();
      gateway = open(file);
      expect(await gateway.store.claim('ran', now + 1, 60_000)).toEqual({
        claimed: false,
        record: { state: 'outcome_lost' },
      });
      expect(await gateway.store.claim('never-ran', now + 1, 60_000)).toEqual({ claimed: true });
      expect(service.store.hostRun(run('never-ran', 'run-3'), 'req-retry')).toEqual({ refused: 'in_flight' });
      neverRanDone();
      ranDone();
      // Once the first run is over: it appended nothing, so the retry runs; the one that appended never runs again.
      const retryDone = done(service.store.hostRun(run('never-ran', 'run-3'), 'req-retry'));
      expect(service.store.hostRun(run('ran', 'run-4'), 'req-retry')).toEqual({ refused: 'outcome_lost' });
      // A service the first run calls (the same run, in another process on the file) is not refused by its row.
      const other = open(file);
      try {
        done(other.store.hostRun(run('ran', 'run-1'), 'req-ran'))();
      } finally {
        other.db.close();
      }
      // Past the retention, a new claim of the key is a new request.
      expect(service.store.hostRun({ ...run('ran', 'run-5'), claimedAt: now + day }, 'req-5')).toEqual({
        done: expect.any(Function),
      });
      retryDone();
      // Events of that correlation id appended after the runs ended record nothing.
      await service.events.append('crd-2', [event('req-never-ran')]);
      expect(await gateway.store.claim('never-ran', now + 2, 60_000)).toEqual({
        claimed: false,
        record: { state: 'in_flight', leaseUntil: now + 1 + 60_000 },
      });
      gateway.db.close();
      gateway = open(file);
      expect(await gateway.store.claim('never-ran', now + 2, 60_000)).toEqual({ claimed: true });
    } finally {
      gateway.db.close();
      service.db.close();
    }
  });

  it('refuses a run that reaches the service after its key has an outcome (a late first run of a timed-out request)', async () => {
    const file = join(dir, 'late.sqlite');
    const service = open(file);
    const gateway = open(file);
    try {
      // The first run's message is still on its way; the gateway gave up on it, its retry ran and answered.
      expect(await gateway.store.claim('late', now, 60_000)).toEqual({ claimed: true });
      const response = { status: 201, headers: {}, body: '{"id":"crd-1"}' };
      await gateway.store.complete('late', response, now + day);
      expect(service.store.hostRun(run('late', 'run-first'), 'req-first')).toEqual({
        refused: 'outcome_lost',
      });
    } finally {
      gateway.db.close();
      service.db.close();
    }
  });
});
