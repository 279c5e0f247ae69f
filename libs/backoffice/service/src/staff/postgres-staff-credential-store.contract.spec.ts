import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { staffCredentialStoreContract } from './contract/staff-credential-store.contract';
import { postgresStaffCredentials } from './open-staff-credential-store';

describeWhenConfigured('DATABASE_URL', 'staff credential store contract: PostgreSQL', (url) => {
  jest.setTimeout(30_000);
  // A schema of its own for the suite, which the opener creates; each open is a pool of its own (the store
  // ends it), so a reopen reads only what was committed.
  const schema = `staff_credentials_${randomBytes(6).toString('hex')}`;
  const asAdmin = async <T>(work: (admin: Pool) => Promise<T>): Promise<T> => {
    const admin = new Pool({ connectionString: url, max: 1 });
    try {
      return await work(admin);
    } finally {
      await admin.end();
    }
  };
  staffCredentialStoreContract({
    open: postgresStaffCredentials({ databaseUrl: url, schema }),
    rawDump: () =>
      asAdmin(async (admin) => {
        const tables = ['credentials', 'invitations', 'sessions'];
        const all = await Promise.all(tables.map((table) => admin.query(`SELECT * FROM ${schema}.${table}`)));
        return JSON.stringify(all.map((result) => result.rows));
      }),
    cleanup: () => asAdmin((admin) => admin.query(`DROP SCHEMA ${schema} CASCADE`)).then(() => undefined),
  });
});
