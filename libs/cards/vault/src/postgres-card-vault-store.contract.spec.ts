import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { cardVaultStoreContract } from './contract/card-vault-store.contract';
import { PostgresCardVaultStore } from './postgres-card-vault-store';

describeWhenConfigured('DATABASE_URL', 'card vault store contract: PostgreSQL', (url) => {
  jest.setTimeout(30_000);
  // A schema of its own for the suite, which the store creates; each open is a pool of its own (the store
  // ends it), so a reopen reads only what was committed.
  const schema = `card_vault_${randomBytes(6).toString('hex')}`;
  cardVaultStoreContract({
    open: () => PostgresCardVaultStore.connect({ url, schema, max: 3 }),
    cleanup: async () => {
      const admin = new Pool({ connectionString: url, max: 1 });
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  });
});

describeWhenConfigured(
  'DATABASE_URL',
  'card vault store contract: PostgreSQL, as a role with privileges on the vault schema only',
  (url) => {
    jest.setTimeout(30_000);
    const suffix = randomBytes(6).toString('hex');
    const role = `cip_vault_${suffix}`;
    const schema = `card_vault_${suffix}`;
    /** A schema of the scopes (events, read models) beside the vault's, on the same database. */
    const scopeSchema = `cip_scope_${suffix}`;
    const asRole = new URL(url);
    asRole.username = role;
    let admin: Pool;

    // Before the contract's own beforeAll opens the store: what a deployment's DBA sets up once.
    beforeAll(async () => {
      admin = new Pool({ connectionString: url, max: 1 });
      await admin.query(`CREATE ROLE ${role} LOGIN NOINHERIT`);
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.query(`GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${role}`);
      await admin.query(`CREATE SCHEMA ${scopeSchema}`);
      await admin.query(`CREATE TABLE ${scopeSchema}.events (id text PRIMARY KEY, data text)`);
      await admin.query(`INSERT INTO ${scopeSchema}.events VALUES ('evt-1', 'a cardholder''s event')`);
    });
    afterAll(async () => {
      await admin.query(`DROP SCHEMA ${schema}, ${scopeSchema} CASCADE`);
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
      await admin.end();
    });

    cardVaultStoreContract({
      open: () => PostgresCardVaultStore.connect({ url: asRole.toString(), schema, max: 2 }),
      // The schema goes in afterAll, after the role's last pool is ended.
      cleanup: async () => undefined,
    });

    it('keeps its tables in its schema, and its role reads and creates nothing outside it', async () => {
      const tables = await admin.query<{ table_name: string; owner: string }>(
        `SELECT c.relname AS table_name, pg_get_userbyid(c.relowner) AS owner
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.relname`,
        [schema],
      );
      expect(tables.rows).toEqual(
        ['cards', 'key_encryption_keys', 'reveal_links', 'schema_migrations'].map((table_name) => ({
          table_name,
          owner: role,
        })),
      );
      const pool = new Pool({ connectionString: asRole.toString(), max: 1 });
      const denied = { code: '42501' }; // insufficient_privilege
      try {
        await expect(pool.query(`SELECT * FROM ${scopeSchema}.events`)).rejects.toMatchObject(denied);
        await expect(pool.query(`CREATE TABLE ${scopeSchema}.copied (pan text)`)).rejects.toMatchObject(
          denied,
        );
        await expect(pool.query('CREATE TABLE public.copied (pan text)')).rejects.toMatchObject(denied);
        await expect(pool.query(`CREATE SCHEMA elsewhere_${suffix}`)).rejects.toMatchObject(denied);
      } finally {
        await pool.end();
      }
    });
  },
);
