import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { leasesContract } from '../contract/leases.contract';
import { PostgresLeases } from './postgres-leases';
import { openPostgresPool } from './postgres-pool';

describeWhenConfigured('DATABASE_URL', 'leases contract: PostgreSQL', (url) => {
  jest.setTimeout(30_000);
  const schema = `cip_contract_${randomBytes(6).toString('hex')}`;
  let pool: Pool;
  leasesContract({
    open: async () => {
      pool = openPostgresPool(url, { schema, max: 8 });
      await pool.query(`CREATE SCHEMA ${schema}`);
      return PostgresLeases.open(pool);
    },
    cleanup: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  });
});
