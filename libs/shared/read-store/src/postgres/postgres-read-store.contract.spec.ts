import { describeWhenConfigured, freshDatabase } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { readStoreContract } from '../contract/read-store.contract';
import { ensurePostgresSchema, openPostgresPool } from './postgres-pool';
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

describeWhenConfigured('DATABASE_URL', 'read store: PostgreSQL transactions and query plans', (url) => {
  jest.setTimeout(30_000);
  const schema = `cip_plans_${randomBytes(6).toString('hex')}`;
  let pool: Pool;
  let store: PostgresReadStore;
  /** The statements the store sent, to ask the planner how it runs them. */
  const sent: { text: string; values: unknown[] }[] = [];
  const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
  const plan = async (statement: { text: string; values: unknown[] }) =>
    (await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.values)).rows
      .map((row) => row['QUERY PLAN'])
      .join('\n');

  beforeAll(async () => {
    pool = openPostgresPool(url, { schema, max: 2 });
    await pool.query(`CREATE SCHEMA ${schema}`);
    store = await PostgresReadStore.open(pool);
    const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: typeof query }).query = (text, values) => {
      sent.push({ text, values: values ?? [] });
      return query(text, values);
    };
    // Enough documents, across collections and tenants, that a scan costs more than an index to the planner.
    for (const collection of ['authorizations', 'deadlines', 'users']) {
      await store.upsertMany(
        collection,
        Array.from({ length: 3000 }, (_, i) => ({
          id: `${collection}-${i}`,
          doc: {
            id: `${collection}-${i}`,
            distributorId: `dst-${i % 50}`,
            cardId: `crd-${i}`,
            createdAt: at(i % 60),
            updatedAt: at(i % 60),
            ...(i % 10 === 0 && { expiresAt: at(i % 60) }),
          },
          version: 1,
          positions: { created: i, updated: i },
        })),
      );
    }
    await store.ensureIndexes('authorizations', ['cardId']);
    await pool.query('ANALYZE read_models');
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  });

  it('applies the writes of one call together: one that fails leaves none of them', async () => {
    const doc = (id: string, name: string) => ({ id, name, createdAt: at(1), updatedAt: at(1) });
    // Two writes to one id (two statements), then a document PostgreSQL refuses (NUL is not valid in JSONB).
    await expect(
      store.upsertMany('atomic', [
        { id: 'a', doc: doc('a', 'first'), version: 1 },
        { id: 'a', doc: doc('a', 'second'), version: 2 },
        { id: 'b', doc: doc('b', 'nul\u0000'), version: 1 },
      ]),
    ).rejects.toThrow();
    expect(await store.get('atomic', 'a')).toBeNull();
    expect(await store.upsertMany('atomic', [{ id: 'a', doc: doc('a', 'first'), version: 1 }])).toBe(1);
  });

  it('reads expired documents through the expiry index', async () => {
    sent.length = 0;
    expect(await store.expiredBy('deadlines', at(0), { limit: 100 })).toHaveLength(50);
    expect(await plan(sent[0])).toMatch(/Index (Only )?Scan using read_models_expiry/);
  });

  it("reads a tenant's page through the tenant index in list order, without sorting", async () => {
    sent.length = 0;
    const page = await store.find('users', {
      filter: { distributorId: 'dst-7' },
      sort: { field: 'createdAt', direction: 'desc' },
      page: 0,
      limit: 10,
    });
    expect(page.items).toHaveLength(10);
    const users = await plan(sent[0]);
    expect(users).toMatch(/Index Scan (Backward )?using read_models_tenant_created_order/);
    expect(users).not.toMatch(/Sort/);
  });

  it('reads a lookup by an indexed field through its index, also in a store opened after it was made', async () => {
    const reopened = await PostgresReadStore.open(pool);
    sent.length = 0;
    const page = await reopened.find('authorizations', {
      filter: { cardId: 'crd-42' },
      sort: { field: 'createdAt', direction: 'asc' },
      page: 0,
      limit: 10,
    });
    expect(page.items.map((d) => d.id)).toEqual(['authorizations-42']);
    expect(await plan(sent[0])).toMatch(/Index Scan using read_models_lookup_/);
  });
});

describeWhenConfigured(
  'DATABASE_URL',
  'read store: PostgreSQL index builds of processes starting together',
  (url) => {
    jest.setTimeout(60_000);

    it('builds every lookup index once, without deadlock, when processes of two scopes declare them at once', async () => {
      const database = await freshDatabase(url, 'cip_index_builds');
      const schemas = ['cip_sandbox', 'cip_production'];
      // Two processes per scope, each with a pool of its own, as the split topology's services start.
      const pools = schemas.flatMap((schema) =>
        [1, 2].map(() => openPostgresPool(database.url, { schema, max: 2 })),
      );
      try {
        for (const schema of schemas) await ensurePostgresSchema(pools[0], schema);
        const stores = await Promise.all(pools.map((pool) => PostgresReadStore.open(pool)));
        const collections = ['users', 'cards', 'wallets'];
        await Promise.all(
          stores.flatMap((store) =>
            collections.map((collection) => store.ensureIndexes(collection, ['email', 'status'])),
          ),
        );
        for (const schema of schemas) {
          const { rows } = await pools[0].query<{ valid: boolean }>(
            `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = $1 AND c.relname LIKE 'read_models_lookup%'`,
            [schema],
          );
          expect(rows).toHaveLength(collections.length * 2);
          expect(rows.every((row) => row.valid)).toBe(true);
        }
      } finally {
        await Promise.all(pools.map((pool) => pool.end()));
        await database.drop();
      }
    });
  },
);
