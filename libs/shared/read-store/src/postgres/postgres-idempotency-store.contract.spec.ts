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
