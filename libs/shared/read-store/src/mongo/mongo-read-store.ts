import type { Collection, Connection, mongo } from 'mongoose';
import type {
  FindQuery,
  FindResult,
  LogPositions,
  ReadDocument,
  ReadStore,
  StoredDocument,
  VersionedWrite,
} from '../read-store.port';
import { pageReading } from '../read-store.port';

/**
 * One read-model document as stored: the JSON document under `doc` (null: a tombstone), its version, and
 * the log positions that order it among documents of the same millisecond.
 */
interface StoredRecord {
  _id: string;
  version: number;
  doc: ReadDocument | null;
  positions?: LogPositions;
}

const NO_POSITIONS: LogPositions = { created: 0, updated: 0 };

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DUPLICATE_KEY = 11000;
const INDEX_NOT_FOUND = 27;
const NAMESPACE_NOT_FOUND = 26;
/** Read models share their database with other collections (idempotency keys). */
const COLLECTION_PREFIX = 'rm_';

/**
 * Read models on MongoDB (mongoose connection, native collections): one collection per read model, one
 * MongoDB document per read-model document, keyed by its id. The version guard is the upsert's filter
 * (`version < new version`), so the database itself refuses stale writes, whatever process sends them.
 * Writes of one call are not atomic together (no transactions on a standalone server); each is idempotent,
 * so a retried call converges. The tenant-and-sort indexes are created on a collection's first use.
 */
export class MongoReadStore implements ReadStore {
  private readonly indexed = new Map<string, Promise<void>>();

  /** @param connection a connection to the scope's database; its owner closes it. */
  constructor(private readonly connection: Connection) {}

  async upsertMany<T extends ReadDocument>(collection: string, writes: VersionedWrite<T>[]): Promise<number> {
    if (writes.length === 0) return 0;
    const records = await this.collection(collection);
    // Writes to the same id go in successive rounds, so that they apply in the order given, as SQLite does.
    const rounds: VersionedWrite<T>[][] = [];
    const seen = new Map<string, number>();
    for (const write of writes) {
      const round = seen.get(write.id) ?? 0;
      seen.set(write.id, round + 1);
      (rounds[round] ??= []).push(write);
    }
    let applied = 0;
    for (const round of rounds) applied += await this.applyRound(records, round);
    return applied;
  }

  private async applyRound(records: Collection<StoredRecord>, writes: VersionedWrite[]): Promise<number> {
    const operations = writes.map((write) => ({
      updateOne: {
        filter: { _id: write.id, version: { $lt: write.version } },
        // A JSON round trip stores what SQLite stores: no undefined fields, dates as ISO strings.
        update: {
          $set: {
            version: write.version,
            doc: write.doc && (JSON.parse(JSON.stringify(write.doc)) as ReadDocument),
            positions: write.positions ?? NO_POSITIONS,
          },
        },
        upsert: true,
      },
    }));
    try {
      const result = await records.bulkWrite(operations, { ordered: false });
      return result.modifiedCount + result.upsertedCount;
    } catch (error) {
      if (!isBulkWriteError(error) || error.err) throw error;
      const failures = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
      if (failures.some((failure) => failure.code !== DUPLICATE_KEY)) throw error;
      // The document exists with a version not below this one (the guard refused), or another writer
      // inserted it between our filter and our insert: as an update, the guard decides alone.
      let applied = error.modifiedCount + error.upsertedCount;
      for (const { index } of failures) {
        const { filter, update } = operations[index].updateOne;
        applied += (await records.updateOne(filter, update)).modifiedCount;
      }
      return applied;
    }
  }

  async getVersioned<T extends ReadDocument>(
    collection: string,
    id: string,
  ): Promise<StoredDocument<T> | null> {
    const records = await this.collection(collection);
    const record = await records.findOne({ _id: id });
    if (!record) return null;
    return {
      doc: record.doc as T | null,
      version: record.version,
      positions: record.positions ?? NO_POSITIONS,
    };
  }

  async get<T extends ReadDocument>(collection: string, id: string): Promise<T | null> {
    return (await this.getVersioned<T>(collection, id))?.doc ?? null;
  }

  async find<T extends ReadDocument>(collection: string, query: FindQuery): Promise<FindResult<T>> {
    // Tombstones have `doc: null`, which a `doc.field: null` filter would otherwise match.
    const conditions: mongo.Filter<StoredRecord>[] = [{ doc: { $ne: null } }];
    for (const [field, value] of Object.entries(query.filter)) {
      if (!FIELD_NAME.test(field)) throw new Error(`Invalid filter field ${field}`);
      // Equality only: an object here (`{$ne: …}`) would turn a value into an operator.
      if (value !== null && typeof value === 'object') throw new Error(`Invalid filter value for ${field}`);
      conditions.push({ [`doc.${field}`]: value });
    }
    const [sortField, positionField] =
      query.sort.field === 'updatedAt'
        ? ['doc.updatedAt', 'positions.updated']
        : ['doc.createdAt', 'positions.created'];
    const cursor = query.cursor;
    const { ascending, page } = pageReading(query);
    if (cursor) {
      // MongoDB has no row-value comparison: the keyset range spelled out on the compound key.
      const beyond = ascending ? '$gt' : '$lt';
      const { value, position, id } = cursor.key;
      conditions.push({
        $or: [
          { [sortField]: { [beyond]: value } },
          { [sortField]: value, [positionField]: { [beyond]: position } },
          { [sortField]: value, [positionField]: position, _id: { [beyond]: id } },
        ],
      });
    }
    const direction = ascending ? 1 : -1;
    const records = await this.collection(collection);
    const rows = await records
      .find({ $and: conditions })
      .sort([
        [sortField, direction],
        [positionField, direction],
        ['_id', direction],
      ])
      .skip(cursor ? 0 : query.page * query.limit)
      .limit(query.limit + 1)
      .toArray();
    return page(rows.map((r) => r.doc as T));
  }

  async expiredBy<T extends ReadDocument & { expiresAt: string }>(
    collection: string,
    at: string,
    { after, limit }: { after?: { expiresAt: string; id: string }; limit: number },
  ): Promise<T[]> {
    const records = await this.collection(collection);
    const due: mongo.Filter<StoredRecord> = { 'doc.expiresAt': { $type: 'string', $lte: at } };
    const conditions: mongo.Filter<StoredRecord>[] = [due];
    if (after) {
      conditions.push({
        $or: [
          { 'doc.expiresAt': { $gt: after.expiresAt } },
          { 'doc.expiresAt': after.expiresAt, _id: { $gt: after.id } },
        ],
      });
    }
    const rows = await records
      .find({ $and: conditions })
      .sort([
        ['doc.expiresAt', 1],
        ['_id', 1],
      ])
      .limit(limit)
      .toArray();
    return rows.map((r) => r.doc as T);
  }

  async ensureIndexes(collection: string, fields: readonly string[]): Promise<void> {
    const records = await this.collection(collection);
    for (const field of fields) {
      if (!FIELD_NAME.test(field)) throw new Error(`Invalid index field ${field}`);
      await records.createIndex(
        { [`doc.${field}`]: 1, 'doc.createdAt': 1, 'positions.created': 1, _id: 1 },
        { name: `lookup_${field}` },
      );
    }
  }

  async all<T extends ReadDocument>(collection: string): Promise<T[]> {
    const records = await this.collection(collection);
    const live = await records
      .find({ doc: { $ne: null } })
      .sort({ _id: 1 })
      .toArray();
    return live.map((r) => r.doc as T);
  }

  async clear(collection: string): Promise<void> {
    // Emptied rather than dropped: the indexes stay, for this process and for every other one.
    await (await this.collection(collection)).deleteMany({});
  }

  async close(): Promise<void> {
    // The connection belongs to the scope; it is closed by its owner.
  }

  private async collection(name: string): Promise<Collection<StoredRecord>> {
    const records = this.connection.collection<StoredRecord>(`${COLLECTION_PREFIX}${name}`);
    let indexes = this.indexed.get(name);
    if (!indexes) {
      // Lists are per tenant, sorted by time, then log position, then id: one index per sort field serves
      // both directions and a cursor's range. The indexes of before positions existed are dropped.
      indexes = Promise.all(
        ['tenant_created', 'tenant_updated'].map((old) => records.dropIndex(old).catch(ignoreMissingIndex)),
      )
        .then(() =>
          records.createIndexes([
            {
              key: { 'doc.distributorId': 1, 'doc.createdAt': 1, 'positions.created': 1, _id: 1 },
              name: 'tenant_created_order',
            },
            {
              key: { 'doc.distributorId': 1, 'doc.updatedAt': 1, 'positions.updated': 1, _id: 1 },
              name: 'tenant_updated_order',
            },
            // The deadline sweeps' read (`expiredBy`): only documents with a deadline are indexed.
            {
              key: { 'doc.expiresAt': 1, _id: 1 },
              name: 'expiry',
              partialFilterExpression: { 'doc.expiresAt': { $type: 'string' } },
            },
          ]),
        )
        .then(() => undefined);
      this.indexed.set(name, indexes);
      indexes.catch(() => this.indexed.delete(name));
    }
    await indexes;
    return records;
  }
}

/**
 * Recognised by shape rather than with `instanceof mongo.MongoBulkWriteError`: importing mongoose's values
 * here would load it into every process that imports the read-store library, embedded ones included.
 */
function isBulkWriteError(error: unknown): error is mongo.MongoBulkWriteError {
  return error instanceof Error && error.name === 'MongoBulkWriteError' && 'writeErrors' in error;
}

/** Dropping an index that is not there (a new collection, or one already migrated) is not a failure. */
function ignoreMissingIndex(error: unknown): void {
  const code = (error as { code?: unknown }).code;
  if (code !== INDEX_NOT_FOUND && code !== NAMESPACE_NOT_FOUND) throw error;
}
