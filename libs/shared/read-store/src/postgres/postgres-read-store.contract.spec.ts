import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { readStoreContract } from '../contract/read-store.contract';
import { openPostgresPool } from './postgres-pool';
import { PostgresReadStore } from './postgres-read-store';

describeWhenConfigured('DATABASE_URL', 'read store contract: PostgreSQL', (url) => {
  jest.setTimeout(30_000);
  // A schema of its own, so the run starts from an empty database and applies every migration.
  const schema = `cip_contract_${randomBytes(6).toString('hex')}`;
  let pool: Pool;
  readStoreContract({
    open: async () => {
      pool = openPostgresPool(url, { schema, max: 4 });
      await pool.query(`CREATE SCHEMA ${schema}`);
      return PostgresReadStore.open(pool);
    },
    cleanup: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  });
});
