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
import { pageReading } from '../read-store.port';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const COLLECTION_NAME = /^[A-Za-z0-9_-]+$/;
/** A lookup index's name: `read_models_lookup/<collection>/<field>` (quoted where used). */
const LOOKUP_INDEX = /^read_models_lookup\/([A-Za-z0-9_-]+)\/([A-Za-z_][A-Za-z0-9_]*)$/;
const lookupIndexName = (collection: string, field: string) => `read_models_lookup/${collection}/${field}`;
const COLUMNS =
  'collection, id, version, doc, created_at, updated_at, created_position, updated_position, expires_at';
/** The documents' table (a rowid table: see SqliteReadStore); (collection, id) is its unique index. */
const createTable = (name: string) => `
  CREATE TABLE IF NOT EXISTS ${name} (
    collection       TEXT    NOT NULL,
    id               TEXT    NOT NULL,
    version          INTEGER NOT NULL,
    doc              TEXT,
    created_at       TEXT,
    updated_at       TEXT,
    created_position INTEGER NOT NULL DEFAULT 0,
    updated_position INTEGER NOT NULL DEFAULT 0,
    expires_at       TEXT
  );`;

/**
 * Read models of the embedded runtime: one table of JSON documents in the environment's SQLite file.
 * Equality filters use json_extract; the tenant field (distributorId) and the sort keys (time, log
 * position, id) are indexed together. A document's `expiresAt` is kept in a column of its own (indexed where
 * set), so a deadline sweep's read parses no JSON and a write without one costs no index entry.
 *
 * The documents are rows of a rowid table (a new one lands at the table's end) and (collection, id) is a
 * small unique index beside it. Keyed by (collection, id) in a WITHOUT ROWID table, as earlier versions
 * were, each new document (an Event record, an authorization: random ids) landed on a random leaf of the
 * whole table, and a document over ~1 KB (most Event records) spilled into an overflow page of its own
 * (SQLite keeps at most ~1/4 of a page inline in a WITHOUT ROWID row): an upsert cost ~55 us and 18 KB of
 * WAL, against ~21 us and 8 KB this way (20,000 Event records in batches of 40 into a 350 MB file; see
 * docs/STACK-NOTES.md). Files of earlier versions are converted when opened (`convertToRowidTable`).
 */
export class SqliteReadStore implements ReadStore {
  private readonly upsert: Statement;
  private readonly select: Statement;
  private readonly selectAll: Statement;
  private readonly selectExpired: Statement;
  private readonly deleteCollection: Statement;
  private readonly findStatements = new Map<string, Statement>();
  /** Per collection, the fields with a lookup index (`ensureIndexes`, by this or another process). */
  private readonly lookups = new Map<string, Set<string>>();

  constructor(private readonly db: SqliteDatabase) {
    db.exec(createTable('read_models'));
    // Files written before lists ordered ties by log position: their documents keep 0 until a rebuild.
    // Files written before the deadline sweeps read by `expires_at`: the column is filled from the documents
    // once. Checked and altered under the write lock: another process opening the file at once may be adding
    // them.
    db.transaction(() => {
      const columns = db.prepare("SELECT name FROM pragma_table_info('read_models')").pluck().all();
      for (const column of ['created_position', 'updated_position']) {
        if (!columns.includes(column))
          db.exec(`ALTER TABLE read_models ADD COLUMN ${column} INTEGER NOT NULL DEFAULT 0`);
      }
      if (!columns.includes('expires_at')) {
        db.exec(`
          ALTER TABLE read_models ADD COLUMN expires_at TEXT;
          UPDATE read_models SET expires_at = json_extract(doc, '$.expiresAt')
            WHERE doc IS NOT NULL AND json_type(doc, '$.expiresAt') = 'text';`);
      }
    }).immediate();
    this.convertToRowidTable();
    // One index per sort field, in list order within a tenant, so a page (or a cursor's range) is one scan.
    db.exec(`
      CREATE UNIQUE INDEX IF NOT EXISTS read_models_key ON read_models (collection, id);
      DROP INDEX IF EXISTS read_models_tenant_created;
      DROP INDEX IF EXISTS read_models_tenant_updated;
      CREATE INDEX IF NOT EXISTS read_models_tenant_created_order
        ON read_models (collection, json_extract(doc, '$.distributorId'), created_at, created_position, id);
      CREATE INDEX IF NOT EXISTS read_models_tenant_updated_order
        ON read_models (collection, json_extract(doc, '$.distributorId'), updated_at, updated_position, id);
      CREATE INDEX IF NOT EXISTS read_models_expiry
        ON read_models (collection, expires_at, id) WHERE expires_at IS NOT NULL;
    `);
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'read_models'")
      .pluck()
      .all() as string[];
    for (const name of indexes) {
      const lookup = LOOKUP_INDEX.exec(name);
      if (lookup) this.lookupFields(lookup[1]).add(lookup[2]);
    }
    this.upsert = db.prepare(`
      INSERT INTO read_models
        (collection, id, version, doc, created_at, updated_at, created_position, updated_position, expires_at)
      VALUES (@collection, @id, @version, @doc, @createdAt, @updatedAt, @createdPosition, @updatedPosition,
              @expiresAt)
      ON CONFLICT (collection, id) DO UPDATE SET
        version = excluded.version, doc = excluded.doc,
        created_at = excluded.created_at, updated_at = excluded.updated_at,
        created_position = excluded.created_position, updated_position = excluded.updated_position,
        expires_at = excluded.expires_at
      WHERE excluded.version > read_models.version`);
    this.select = db.prepare(
      `SELECT doc, version, created_position AS created, updated_position AS updated
       FROM read_models WHERE collection = ? AND id = ?`,
    );
    this.selectAll = db.prepare(
      'SELECT doc FROM read_models WHERE collection = ? AND doc IS NOT NULL ORDER BY id',
    );
    // The partial index's own condition is spelled out, so SQLite knows the index covers every row asked for.
    this.selectExpired = db.prepare(`
      SELECT doc FROM read_models
      WHERE collection = @collection AND expires_at IS NOT NULL AND expires_at <= @at
        AND (expires_at, id) > (@afterAt, @afterId)
      ORDER BY expires_at, id
      LIMIT CAST(@limit AS INTEGER)`);
    this.deleteCollection = db.prepare('DELETE FROM read_models WHERE collection = ?');
  }

  /**
   * A file of an earlier version keeps its documents in a WITHOUT ROWID table keyed by (collection, id):
   * they are moved into a rowid table of the same columns, in one transaction (under the write lock, looked
   * at again there: another process opening the file at once may have converted it), and the lookup indexes
   * made on the old table are made again on the new one; the constructor then makes the others.
   */
  private convertToRowidTable(): void {
    const isWithoutRowid = () =>
      /WITHOUT\s+ROWID/i.test(
        (this.db
          .prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'read_models'`)
          .pluck()
          .get() as string | undefined) ?? '',
      );
    if (!isWithoutRowid()) return;
    this.db
      .transaction(() => {
        if (!isWithoutRowid()) return;
        const lookupIndexes = this.db
          .prepare(
            `SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'read_models'
             AND name LIKE 'read_models_lookup/%' AND sql IS NOT NULL`,
          )
          .pluck()
          .all() as string[];
        this.db.exec(`
          ${createTable('read_models_rowid')}
          INSERT INTO read_models_rowid (${COLUMNS}) SELECT ${COLUMNS} FROM read_models ORDER BY updated_position;
          DROP TABLE read_models;
          ALTER TABLE read_models_rowid RENAME TO read_models;
        `);
        for (const sql of lookupIndexes) this.db.exec(sql);
      })
      .immediate();
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
          createdPosition: write.positions?.created ?? 0,
          updatedPosition: write.positions?.updated ?? 0,
          expiresAt: typeof write.doc?.expiresAt === 'string' ? write.doc.expiresAt : null,
        }).changes;
      }
    })();
    return applied;
  }

  async getVersioned<T extends ReadDocument>(
    collection: string,
    id: string,
  ): Promise<StoredDocument<T> | null> {
    const row = this.select.get(collection, id) as
      { doc: string | null; version: number; created: number; updated: number } | undefined;
    if (!row) return null;
    return {
      doc: row.doc ? (JSON.parse(row.doc) as T) : null,
      version: row.version,
      positions: { created: row.created, updated: row.updated },
    };
  }

  async get<T extends ReadDocument>(collection: string, id: string): Promise<T | null> {
    return (await this.getVersioned<T>(collection, id))?.doc ?? null;
  }

  /**
   * A partial index per collection and field (only that collection's rows, so other read models' writes do
   * not pay for it); `find` names it (INDEXED BY) with the collection as a literal, which is what lets SQLite
   * use a partial index, and what keeps the planner from preferring the tenant index and filtering.
   */
  async ensureIndexes(collection: string, fields: readonly string[]): Promise<void> {
    if (!COLLECTION_NAME.test(collection)) throw new Error(`Invalid collection name ${collection}`);
    for (const field of fields) {
      if (!FIELD_NAME.test(field)) throw new Error(`Invalid index field ${field}`);
      this.db.exec(`
        CREATE INDEX IF NOT EXISTS "${lookupIndexName(collection, field)}"
          ON read_models (json_extract(doc, '$.${field}'), created_at, created_position, id)
          WHERE collection = '${collection}'`);
      this.lookupFields(collection).add(field);
    }
  }

  private lookupFields(collection: string): Set<string> {
    let fields = this.lookups.get(collection);
    if (!fields) this.lookups.set(collection, (fields = new Set()));
    return fields;
  }

  async find<T extends ReadDocument>(collection: string, query: FindQuery): Promise<FindResult<T>> {
    const fields = Object.keys(query.filter).sort();
    for (const field of fields) {
      if (!FIELD_NAME.test(field)) throw new Error(`Invalid filter field ${field}`);
    }
    const lookup = fields.find((f) => query.filter[f] !== null && this.lookups.get(collection)?.has(f));
    const [column, position] =
      query.sort.field === 'updatedAt'
        ? ['updated_at', 'updated_position']
        : ['created_at', 'created_position'];
    const cursor = query.cursor;
    const { ascending, page } = pageReading(query);
    const direction = ascending ? 'ASC' : 'DESC';
    const isNull = (f: string) => query.filter[f] === null;
    const key = `${fields.map((f) => (isNull(f) ? `${f}:null` : f)).join(',')}|${column}|${direction}|${cursor ? 'keyset' : 'offset'}${lookup ? `|${collection}` : ''}`;
    let statement = this.findStatements.get(key);
    if (!statement) {
      const where = fields
        .map((f) => `AND json_extract(doc, '$.${f}') ${isNull(f) ? 'IS NULL' : `= @${f}`}`)
        .join(' ');
      // A row value comparison on the index's trailing columns: SQLite seeks to the cursor instead of counting.
      const range = cursor
        ? `AND (${column}, ${position}, id) ${ascending ? '>' : '<'} (@keyValue, @keyPosition, @keyId)`
        : '';
      const source = lookup
        ? `read_models INDEXED BY "${lookupIndexName(collection, lookup)}" WHERE collection = '${collection}'`
        : 'read_models WHERE collection = @collection';
      statement = this.db.prepare(
        `SELECT doc FROM ${source} AND doc IS NOT NULL ${where} ${range}
         ORDER BY ${column} ${direction}, ${position} ${direction}, id ${direction}
         LIMIT CAST(@limit AS INTEGER) OFFSET CAST(@offset AS INTEGER)`,
      );
      this.findStatements.set(key, statement);
    }
    const params: Record<string, unknown> = {
      ...(lookup ? {} : { collection }),
      limit: query.limit + 1,
      offset: cursor ? 0 : query.page * query.limit,
    };
    if (cursor) {
      params.keyValue = cursor.key.value;
      params.keyPosition = cursor.key.position;
      params.keyId = cursor.key.id;
    }
    for (const field of fields) {
      const value = query.filter[field];
      if (value !== null) params[field] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    }
    return page((statement.all(params) as { doc: string }[]).map((r) => JSON.parse(r.doc) as T));
  }

  async expiredBy<T extends ReadDocument & { expiresAt: string }>(
    collection: string,
    at: string,
    { after, limit }: { after?: { expiresAt: string; id: string }; limit: number },
  ): Promise<T[]> {
    const rows = this.selectExpired.all({
      collection,
      at,
      afterAt: after?.expiresAt ?? '',
      afterId: after?.id ?? '',
      limit,
    }) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as T);
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
