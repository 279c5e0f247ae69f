import { describeWhenConfigured } from '@cip/shared/testing';
import { Pool } from 'pg';
import { personalDataKeyStoreContract } from '../contract/personal-data-key-store.contract';
import { freshDatabase } from '../postgres/testing/fresh-database';
import { PostgresPersonalDataKeyStore } from './postgres-personal-data-key-store';

describeWhenConfigured('DATABASE_URL', 'personal-data key store contract: PostgreSQL', (serverUrl) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let pool: Pool;
  personalDataKeyStoreContract({
    open: async () => {
      database = await freshDatabase(serverUrl, 'cip_keys_contract');
      pool = new Pool({ connectionString: database.url, max: 4 });
      return PostgresPersonalDataKeyStore.open(pool);
    },
    cleanup: async () => {
      await pool.end();
      await database.drop();
    },
  });
});
