import type { SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import type {
  FindQuery,
  FindResult,
  ReadDocument,
  ReadStore,
  StoredDocument,
  VersionedWrite,
} from '../read-store.port';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Read models of the embedded runtime: one table of JSON documents in the environment's SQLite file.
 * Equality filters use json_extract; the tenant field (distributorId) and the sort columns are indexed.
 */
export class SqliteReadStore implements ReadStore {
  private readonly upsert: Statement;
  private readonly select: Statement;
  private readonly selectAll: Statement;
  private readonly deleteCollection: Statement;
  private readonly findStatements = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS read_models (
        collection TEXT    NOT NULL,
        id         TEXT    NOT NULL,
        version    INTEGER NOT NULL,
        doc        TEXT,
        created_at TEXT,
        updated_at TEXT,
        PRIMARY KEY (collection, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS read_models_tenant_created
        ON read_models (collection, json_extract(doc, '$.distributorId'), created_at);
      CREATE INDEX IF NOT EXISTS read_models_tenant_updated
        ON read_models (collection, json_extract(doc, '$.distributorId'), updated_at);
    `);
    this.upsert = db.prepare(`
      INSERT INTO read_models (collection, id, version, doc, created_at, updated_at)
      VALUES (@collection, @id, @version, @doc, @createdAt, @updatedAt)
      ON CONFLICT (collection, id) DO UPDATE SET
        version = excluded.version, doc = excluded.doc,
        created_at = excluded.created_at, updated_at = excluded.updated_at
      WHERE excluded.version > read_models.version`);
    this.select = db.prepare('SELECT doc, version FROM read_models WHERE collection = ? AND id = ?');
    this.selectAll = db.prepare(
      'SELECT doc FROM read_models WHERE collection = ? AND doc IS NOT NULL ORDER BY id',
    );
    this.deleteCollection = db.prepare('DELETE FROM read_models WHERE collection = ?');
  }

  async upsertMany<T extends ReadDocument>(collection: string, writes: VersionedWrite<T>[]): Promise<number> {
    let applied = 0;
    this.db.transaction(() => {
      for (const write of writes) {
        applied += this.upsert.run({
          collection,
          id: write.id,
          version: write.version,
          doc: write.doc ? JSON.stringify(write.doc) : null,
          createdAt: write.doc?.createdAt ?? null,
          updatedAt: write.doc?.updatedAt ?? null,
        }).changes;
      }
    })();
    return applied;
  }

  async getVersioned<T extends ReadDocument>(
    collection: string,
    id: string,
  ): Promise<StoredDocument<T> | null> {
    const row = this.select.get(collection, id) as { doc: string | null; version: number } | undefined;
    if (!row) return null;
    return { doc: row.doc ? (JSON.parse(row.doc) as T) : null, version: row.version };
  }

  async get<T extends ReadDocument>(collection: string, id: string): Promise<T | null> {
    return (await this.getVersioned<T>(collection, id))?.doc ?? null;
  }

  async find<T extends ReadDocument>(collection: string, query: FindQuery): Promise<FindResult<T>> {
    const fields = Object.keys(query.filter).sort();
    for (const field of fields) {
      if (!FIELD_NAME.test(field)) throw new Error(`Invalid filter field ${field}`);
    }
    const column = query.sort.field === 'updatedAt' ? 'updated_at' : 'created_at';
    const direction = query.sort.direction === 'asc' ? 'ASC' : 'DESC';
    const isNull = (f: string) => query.filter[f] === null;
    const key = `${fields.map((f) => (isNull(f) ? `${f}:null` : f)).join(',')}|${column}|${direction}`;
    let statement = this.findStatements.get(key);
    if (!statement) {
      const where = fields
        .map((f) => `AND json_extract(doc, '$.${f}') ${isNull(f) ? 'IS NULL' : `= @${f}`}`)
        .join(' ');
      statement = this.db.prepare(
        `SELECT doc FROM read_models WHERE collection = @collection AND doc IS NOT NULL ${where}
         ORDER BY ${column} ${direction}, version ${direction}, id ${direction} LIMIT @limit OFFSET @offset`,
      );
      this.findStatements.set(key, statement);
    }
    const params: Record<string, unknown> = {
      collection,
      limit: query.limit + 1,
      offset: query.page * query.limit,
    };
    for (const field of fields) {
      const value = query.filter[field];
      if (value !== null) params[field] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    }
    const rows = (statement.all(params) as { doc: string }[]).map((r) => JSON.parse(r.doc) as T);
    return { items: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
  }

  async all<T extends ReadDocument>(collection: string): Promise<T[]> {
    return (this.selectAll.all(collection) as { doc: string }[]).map((r) => JSON.parse(r.doc) as T);
  }

  async clear(collection: string): Promise<void> {
    this.deleteCollection.run(collection);
  }

  async close(): Promise<void> {
    // The database handle belongs to the environment; it is closed by its owner.
  }
}
