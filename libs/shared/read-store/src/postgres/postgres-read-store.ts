import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import type {
  FilterValue,
  FindQuery,
  FindResult,
  ReadDocument,
  ReadStore,
  StoredDocument,
  VersionedWrite,
} from '../read-store.port';
import { pageReading } from '../read-store.port';
import { migrate, type Migration } from '@cip/shared/runtime';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const COLLECTION_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * The read store's schema. Text columns that order lists (times, ids) compare bytewise (COLLATE "C"), as
 * SQLite and MongoDB do, whatever the database's locale: ISO-8601 instants and ids sort as their bytes.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'read_models: JSONB documents per collection, tenant list order and expiry indexes',
    sql: `
      CREATE TABLE read_models (
        collection       text COLLATE "C" NOT NULL,
        id               text COLLATE "C" NOT NULL,
        version          bigint NOT NULL,
        doc              jsonb,
        created_at       text COLLATE "C",
        updated_at       text COLLATE "C",
        created_position bigint NOT NULL DEFAULT 0,
        updated_position bigint NOT NULL DEFAULT 0,
        expires_at       text COLLATE "C",
        PRIMARY KEY (collection, id)
      );
      CREATE INDEX read_models_tenant_created_order
        ON read_models (collection, (doc -> 'distributorId'), created_at, created_position, id);
      CREATE INDEX read_models_tenant_updated_order
        ON read_models (collection, (doc -> 'distributorId'), updated_at, updated_position, id);
      CREATE INDEX read_models_expiry
        ON read_models (collection, expires_at, id) WHERE expires_at IS NOT NULL;
    `,
  },
];

interface Row {
  doc: ReadDocument | null;
  version: string;
  created: string;
  updated: string;
}

/** The advisory lock every read-model index build of the database holds (see `ensureIndexes`). */
const INDEX_BUILD_LOCK = 'cip:read-model-index-build';

export interface PostgresReadStoreOptions {
  /** The name its schema steps are recorded under in `schema_migrations` (default `read-store`). */
  component?: string;
}

/**
 * Read models on PostgreSQL: one table of JSONB documents keyed by (collection, id), beside columns for
 * what lists and sweeps order by (times, log positions, expiry), so those reads use plain btree indexes.
 * The version guard is the upsert's condition (`version < new version`), so the database refuses stale
 * writes whatever process sends them; a tombstone is a row with a null document that keeps its version.
 * Equality filters compare JSONB values (`doc -> 'field' = $1::jsonb`: a string never equals a number or a
 * boolean; a null filter matches a missing field too, as SQLite's json_extract and MongoDB do).
 *
 * Open it with `PostgresReadStore.open`, which applies its schema steps first. The pool belongs to the
 * caller, who closes it after the store.
 */
export class PostgresReadStore implements ReadStore {
  private constructor(private readonly pool: Pool) {}

  static async open(pool: Pool, options: PostgresReadStoreOptions = {}): Promise<PostgresReadStore> {
    await migrate(pool, options.component ?? 'read-store', MIGRATIONS);
    return new PostgresReadStore(pool);
  }

  /**
   * Applies the writes in one transaction. Several writes to one id apply in the order given, in successive
   * statements (one INSERT ... ON CONFLICT cannot touch a row twice); the writes of one round are one
   * statement, whatever their number.
   */
  async upsertMany<T extends ReadDocument>(collection: string, writes: VersionedWrite<T>[]): Promise<number> {
    if (writes.length === 0) return 0;
    const rounds: VersionedWrite<T>[][] = [];
    const seen = new Map<string, number>();
    for (const write of writes) {
      const round = seen.get(write.id) ?? 0;
      seen.set(write.id, round + 1);
      (rounds[round] ??= []).push(write);
    }
    if (rounds.length === 1) return this.applyRound(this.pool, collection, rounds[0]);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      let applied = 0;
      for (const round of rounds) applied += await this.applyRound(client, collection, round);
      await client.query('COMMIT');
      return applied;
    } catch (error) {
      broken = error as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private async applyRound<T extends ReadDocument>(
    db: Pick<Pool, 'query'>,
    collection: string,
    writes: VersionedWrite<T>[],
  ): Promise<number> {
    const result = await db.query(
      `INSERT INTO read_models
         (collection, id, version, doc, created_at, updated_at, created_position, updated_position, expires_at)
       SELECT $1, w.id, w.version, w.doc::jsonb, w.created_at, w.updated_at, w.created_position,
              w.updated_position, w.expires_at
       FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[],
                   $9::text[])
         AS w (id, version, doc, created_at, updated_at, created_position, updated_position, expires_at)
       ON CONFLICT (collection, id) DO UPDATE SET
         version = excluded.version, doc = excluded.doc,
         created_at = excluded.created_at, updated_at = excluded.updated_at,
         created_position = excluded.created_position, updated_position = excluded.updated_position,
         expires_at = excluded.expires_at
       WHERE read_models.version < excluded.version`,
      [
        collection,
        writes.map((w) => w.id),
        writes.map((w) => w.version),
        writes.map((w) => (w.doc ? JSON.stringify(w.doc) : null)),
        writes.map((w) => w.doc?.createdAt ?? null),
        writes.map((w) => w.doc?.updatedAt ?? null),
        writes.map((w) => w.positions?.created ?? 0),
        writes.map((w) => w.positions?.updated ?? 0),
        writes.map((w) => (typeof w.doc?.expiresAt === 'string' ? w.doc.expiresAt : null)),
      ],
    );
    return result.rowCount ?? 0;
  }

  async getVersioned<T extends ReadDocument>(
    collection: string,
    id: string,
  ): Promise<StoredDocument<T> | null> {
    const { rows } = await this.pool.query<Row>(
      `SELECT doc, version, created_position AS created, updated_position AS updated
       FROM read_models WHERE collection = $1 AND id = $2`,
      [collection, id],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      doc: row.doc as T | null,
      version: Number(row.version),
      positions: { created: Number(row.created), updated: Number(row.updated) },
    };
  }

  async get<T extends ReadDocument>(collection: string, id: string): Promise<T | null> {
    return (await this.getVersioned<T>(collection, id))?.doc ?? null;
  }

  async find<T extends ReadDocument>(collection: string, query: FindQuery): Promise<FindResult<T>> {
    const params: unknown[] = [collection];
    const param = (value: unknown) => `$${params.push(value)}`;
    const conditions = ['collection = $1', 'doc IS NOT NULL'];
    for (const [field, value] of Object.entries(query.filter)) {
      conditions.push(equals(field, value, param));
    }
    const [column, position] =
      query.sort.field === 'updatedAt'
        ? ['updated_at', 'updated_position']
        : ['created_at', 'created_position'];
    const { ascending, page } = pageReading(query);
    const direction = ascending ? 'ASC' : 'DESC';
    const cursor = query.cursor;
    if (cursor) {
      const { value, position: at, id } = cursor.key;
      conditions.push(
        `(${column}, ${position}, id) ${ascending ? '>' : '<'} (${param(value)}, ${param(at)}, ${param(id)})`,
      );
    }
    const { rows } = await this.pool.query<{ doc: T }>(
      `SELECT doc FROM read_models WHERE ${conditions.join(' AND ')}
       ORDER BY ${column} ${direction}, ${position} ${direction}, id ${direction}
       LIMIT ${param(query.limit + 1)} OFFSET ${param(cursor ? 0 : query.page * query.limit)}`,
      params,
    );
    return page(rows.map((row) => row.doc));
  }

  async expiredBy<T extends ReadDocument & { expiresAt: string }>(
    collection: string,
    at: string,
    { after, limit }: { after?: { expiresAt: string; id: string }; limit: number },
  ): Promise<T[]> {
    // The partial index's condition is spelled out, so the planner knows the index covers the rows asked for.
    const { rows } = await this.pool.query<{ doc: T }>(
      // The rule is SQLite's (statement reuse); PostgreSQL plans an unnamed statement on each run anyway.
      // eslint-disable-next-line no-restricted-syntax
      `SELECT doc FROM read_models
       WHERE collection = $1 AND expires_at IS NOT NULL AND expires_at <= $2
         AND (expires_at, id) > ($3, $4)
       ORDER BY expires_at, id
       LIMIT $5`,
      [collection, at, after?.expiresAt ?? '', after?.id ?? '', limit],
    );
    return rows.map((row) => row.doc);
  }

  /**
   * A partial index per collection and field (only that collection's rows, so other read models' writes do
   * not pay for it), on the field's JSONB value as `find` compares it, in list order. Built CONCURRENTLY, so
   * the consumer that declares it on a live table does not stop its writers meanwhile; under one advisory
   * lock for every build of the database, so two processes declaring it at once build it once and two
   * builds never wait for each other. An index left invalid by a build that failed
   * is dropped and built again.
   */
  async ensureIndexes(collection: string, fields: readonly string[]): Promise<void> {
    if (!COLLECTION_NAME.test(collection)) throw new Error(`Invalid collection name ${collection}`);
    for (const field of fields) if (!FIELD_NAME.test(field)) throw new Error(`Invalid index field ${field}`);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      for (const field of fields) {
        const name = lookupIndexName(collection, field);
        // One build at a time in the whole database, whatever the index: a CREATE INDEX CONCURRENTLY of an
        // expression index waits out every transaction older than its snapshot, other concurrent builds
        // included (PostgreSQL spares only plain-column builds), so two at once (two processes, two scopes'
        // tables) deadlock, and one process fails to start ("deadlock detected", seen when the split
        // topology's processes start together on a new database). Tried, never waited for in
        // pg_advisory_lock: a session blocked in that call keeps a transaction open, which the holder's build
        // waits for while it waits for the holder's lock (the same deadlock).
        for (;;) {
          const { rows } = await client.query<{ locked: boolean }>(
            'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
            [INDEX_BUILD_LOCK],
          );
          if (rows[0]?.locked) break;
          await new Promise((resolveWait) => setTimeout(resolveWait, 50));
        }
        try {
          const { rows } = await client.query<{ valid: boolean }>(
            `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             WHERE c.relname = $1 AND pg_table_is_visible(c.oid)`,
            [name],
          );
          if (rows[0]?.valid) continue;
          if (rows[0]) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
          await client.query(
            `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name}
               ON read_models ((doc -> '${field}'), created_at, created_position, id)
               WHERE collection = '${collection}'`,
          );
          await client.query(`COMMENT ON INDEX ${name} IS 'lookup of ${collection} by ${field}'`);
        } finally {
          await client.query('SELECT pg_advisory_unlock(hashtext($1))', [INDEX_BUILD_LOCK]);
        }
      }
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async all<T extends ReadDocument>(collection: string): Promise<T[]> {
    const { rows } = await this.pool.query<{ doc: T }>(
      'SELECT doc FROM read_models WHERE collection = $1 AND doc IS NOT NULL ORDER BY id',
      [collection],
    );
    return rows.map((row) => row.doc);
  }

  async clear(collection: string): Promise<void> {
    await this.pool.query('DELETE FROM read_models WHERE collection = $1', [collection]);
  }

  async close(): Promise<void> {
    // The pool belongs to the scope; it is closed by its owner.
  }
}

/** A filter on one top-level field, as the lookup indexes' expression spells it (`doc -> 'field'`). */
function equals(field: string, value: FilterValue, param: (value: unknown) => string): string {
  if (!FIELD_NAME.test(field)) throw new Error(`Invalid filter field ${field}`);
  if (value === null) return `(doc -> '${field}' IS NULL OR doc -> '${field}' = 'null'::jsonb)`;
  if (typeof value === 'object') throw new Error(`Invalid filter value for ${field}`);
  return `doc -> '${field}' = ${param(JSON.stringify(value))}::jsonb`;
}

/**
 * A lookup index's name: PostgreSQL cuts names at 63 bytes, which a collection and a field may exceed, so
 * the name carries a digest of both (the index's comment says which).
 */
function lookupIndexName(collection: string, field: string): string {
  const digest = createHash('sha256').update(`${collection}/${field}`).digest('hex').slice(0, 32);
  return `read_models_lookup_${digest}`;
}
