import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { personalDataKeyStoreContract } from '../contract/personal-data-key-store.contract';
import { PostgresPersonalDataKeyStore } from './postgres-key-store';

describeWhenConfigured('DATABASE_URL', 'personal-data key store contract: PostgreSQL', (url) => {
  jest.setTimeout(30_000);
  // A schema of its own, so the run starts from an empty database and applies every migration.
  const schema = `cip_contract_${randomBytes(6).toString('hex')}`;
  let pool: Pool;
  personalDataKeyStoreContract({
    open: async () => {
      pool = new Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` });
      await pool.query(`CREATE SCHEMA ${schema}`);
      return PostgresPersonalDataKeyStore.open(pool);
    },
    cleanup: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  });
});
