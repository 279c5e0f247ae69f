import { PostgresEventStore } from '@cip/shared/eventing/distributed';
import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, type Pool } from 'pg';
import { idempotencyStoreContract } from '../contract/idempotency-store.contract';
import { PostgresIdempotencyStore } from './postgres-idempotency-store';
import { openPostgresPool } from './postgres-pool';

describeWhenConfigured('DATABASE_URL', 'idempotency store contract: PostgreSQL', (url) => {
  jest.setTimeout(30_000);
  const schema = `cip_contract_${randomBytes(6).toString('hex')}`;
  let pool: Pool;
  idempotencyStoreContract({
    open: async () => {
      pool = openPostgresPool(url, { schema, max: 4 });
      await pool.query(`CREATE SCHEMA ${schema}`);
      return PostgresIdempotencyStore.open(pool);
    },
    cleanup: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  });
});

describeWhenConfigured(
  'DATABASE_URL',
  'PostgreSQL idempotency store: gateways of several processes',
  (url) => {
    jest.setTimeout(30_000);
    const schema = `cip_gateways_${randomBytes(6).toString('hex')}`;
    const now = Date.UTC(2026, 0, 1);
    const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"crd-1"}' };
    let pools: Pool[];
    let gateways: PostgresIdempotencyStore[];

    beforeAll(async () => {
      // Each gateway process has its own pool; both open the store at once and migrate it once.
      pools = [0, 1].map(() => openPostgresPool(url, { schema, max: 2 }));
      await pools[0].query(`CREATE SCHEMA ${schema}`);
      gateways = await Promise.all(pools.map((pool) => PostgresIdempotencyStore.open(pool)));
    });
    afterAll(async () => {
      await pools[0].query(`DROP SCHEMA ${schema} CASCADE`);
      await Promise.all(pools.map((pool) => pool.end()));
    });

    it("sees another process's claim in flight, then its stored outcome; takes it over once its lease passed", async () => {
      const [first, second] = gateways;
      const results = await Promise.all([
        first.claim('key-1', now, 30_000, 'req-1'),
        second.claim('key-1', now, 30_000, 'req-2'),
      ]);
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
      const [winner, loser] = results[0].claimed ? [first, second] : [second, first];
      expect(await loser.claim('key-1', now + 1_000, 30_000)).toEqual({
        claimed: false,
        record: { state: 'in_flight', leaseUntil: now + 30_000 },
      });
      await winner.complete('key-1', response, now + 86_400_000);
      expect(await loser.claim('key-1', now + 2_000, 30_000)).toEqual({
        claimed: false,
        record: { state: 'completed', response, expiresAt: now + 86_400_000 },
      });
      // The gateway that claimed key-2 died: the other one takes it over when the lease has passed, not before.
      await first.claim('key-2', now, 30_000);
      expect((await second.claim('key-2', now + 29_999, 30_000)).claimed).toBe(false);
      expect(await second.claim('key-2', now + 30_000, 30_000)).toEqual({ claimed: true });
    });
  },
);

describeWhenConfigured(
  'DATABASE_URL',
  'PostgreSQL idempotency store: a keyed run recorded with its events',
  (url) => {
    jest.setTimeout(30_000);
    const id = randomBytes(6).toString('hex');
    // The claims and the events in two schemas of one database, each store with its own pool, as two
    // components of a process would have them: the witness names its table's schema.
    const claimsSchema = `cip_claims_${id}`;
    const eventsSchema = `cip_events_${id}`;
    const now = Date.UTC(2026, 0, 1);
    const lease = 60_000;
    const day = 86_400_000;
    const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"crd-1"}' };
    const event = (correlationId: string, data: Record<string, unknown> = {}) => ({
      type: 'CardCreated',
      data,
      metadata: {
        eventId: randomUUID(),
        occurredAt: new Date(now).toISOString(),
        correlationId,
        schemaVersion: 1,
      },
    });
    let claimsPool: Pool;
    let eventsPool: Pool;
    let events: PostgresEventStore;
    let gateway: PostgresIdempotencyStore;
    /** The gateway after a kill -9 and a restart: a new pool and store on the same tables, nothing in memory. */
    let restarted: PostgresIdempotencyStore;
    let restartedPool: Pool;

    beforeAll(async () => {
      claimsPool = openPostgresPool(url, { schema: claimsSchema, max: 2 });
      eventsPool = openPostgresPool(url, { schema: eventsSchema, max: 2 });
      await claimsPool.query(`CREATE SCHEMA ${claimsSchema}; CREATE SCHEMA ${eventsSchema}`);
      events = await PostgresEventStore.open({
        name: 'postgres:witness',
        connectionString: url,
        pool: eventsPool,
      });
      gateway = await PostgresIdempotencyStore.open(claimsPool, {
        witnessAppends: (witness) => events.witnessAppends(witness),
      });
      restartedPool = openPostgresPool(url, { schema: claimsSchema, max: 2 });
      restarted = await PostgresIdempotencyStore.open(restartedPool);
    });
    afterAll(async () => {
      await events?.close();
      await claimsPool.query(`DROP SCHEMA ${claimsSchema} CASCADE; DROP SCHEMA ${eventsSchema} CASCADE`);
      await Promise.all([claimsPool, eventsPool, restartedPool].map((pool) => pool.end()));
    });

    it('marks the claim ran in the transaction of its events: the retry never runs the command again', async () => {
      for (const [key, requestId] of [
        ['ran', 'req-1'],
        ['never-ran', 'req-2'],
        ['answered', 'req-3'],
      ]) {
        expect(await gateway.claim(key, now, lease, requestId)).toEqual({ claimed: true });
      }
      await events.append('crd-1', [event('req-1'), event('req-1')]);
      await events.append('crd-3', [event('req-3')]);
      await gateway.complete('answered', response, now + day);
      // A later append of an answered request leaves its outcome alone.
      await events.append('crd-3', [event('req-3')]);
      // The kill: 'ran' has its events and no outcome, 'never-ran' neither.

      // While the claim's lease lasts its process may still answer: an identical request is in progress.
      expect(await restarted.claim('ran', now + 1, lease, 'req-4')).toEqual({
        claimed: false,
        record: { state: 'in_flight', leaseUntil: now + lease },
      });
      // Then the command ran and its answer is lost: never a second run, for the retention.
      expect(await restarted.claim('ran', now + lease, lease, 'req-5')).toEqual({
        claimed: false,
        record: { state: 'outcome_lost' },
      });
      expect(await restarted.claim('ran', now + day - 1, lease, 'req-6')).toEqual({
        claimed: false,
        record: { state: 'outcome_lost' },
      });
      expect(await restarted.claim('answered', now + lease, lease, 'req-7')).toEqual({
        claimed: false,
        record: { state: 'completed', response, expiresAt: now + day },
      });
      // No events: its lease passed, the retry runs it.
      expect(await restarted.claim('never-ran', now + lease, lease, 'req-8')).toEqual({ claimed: true });
      // Past the retention the key is free again, as an outcome's is.
      expect(await restarted.purgeExpired(now + day)).toBeGreaterThan(0);
      expect(await restarted.claim('ran', now + day, lease, 'req-9')).toEqual({ claimed: true });
    });

    it('marks nothing for an append refused or a transaction that failed; the others of its commit are marked', async () => {
      for (const [key, requestId] of [
        ['conflict', 'req-20'],
        ['bad-event', 'req-21'],
        ['good', 'req-22'],
      ]) {
        expect(await gateway.claim(key, now, lease, requestId)).toEqual({ claimed: true });
      }
      await events.append('crd-20', [event('other')]);
      const appends = await Promise.allSettled([
        // Refused in its commit (the stream exists).
        events.append('crd-20', [event('req-20')], { expectedRevision: 'no_stream' }),
        // A NUL character jsonb cannot store: the whole transaction fails, and each append is tried alone.
        events.append('crd-21', [event('req-21', { name: 'nul\u0000' })]),
        events.append('crd-22', [event('req-22')]),
      ]);
      expect(appends.map((a) => a.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
      expect(await events.readStream('crd-21')).toEqual([]);
      expect(await restarted.claim('conflict', now + lease, lease, 'req-23')).toEqual({ claimed: true });
      expect(await restarted.claim('bad-event', now + lease, lease, 'req-24')).toEqual({ claimed: true });
      expect(await restarted.claim('good', now + lease, lease, 'req-25')).toEqual({
        claimed: false,
        record: { state: 'outcome_lost' },
      });
    });

    it('refuses to witness the appends of an event store on another database', async () => {
      const name = `cip_other_${id}`;
      const admin = new Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const other = new URL(url);
      other.pathname = `/${name}`;
      const elsewhere = await PostgresEventStore.open({
        name: 'postgres:elsewhere',
        connectionString: other.toString(),
      });
      try {
        await expect(
          PostgresIdempotencyStore.open(claimsPool, {
            witnessAppends: (witness) => elsewhere.witnessAppends(witness),
          }),
        ).rejects.toThrow(/same one/);
      } finally {
        await elsewhere.close();
        await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
        await admin.end();
      }
    });
  },
);
