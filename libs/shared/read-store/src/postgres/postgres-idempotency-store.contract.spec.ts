import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
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
