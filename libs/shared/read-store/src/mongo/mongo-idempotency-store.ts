import type { Collection, Connection, mongo } from 'mongoose';
import type {
  ClaimResult,
  IdempotencyRecord,
  IdempotencyStore,
  StoredResponse,
} from '../idempotency-store.port';

interface KeyRecord {
  _id: string;
  state: 'in_flight' | 'completed';
  leaseUntil?: number;
  expiresAt?: number;
  response?: StoredResponse;
  /** Wall-clock time after which MongoDB's TTL monitor may delete the record (see `ttlGraceMs`). */
  purgeAt?: Date;
}

export interface MongoIdempotencyStoreOptions {
  /**
   * When set, records also carry a TTL date (their expiry plus this grace) and MongoDB deletes them by
   * itself, should `purgeExpired` not run. Leave unset when `nowMs` does not follow the wall clock (tests
   * with a fixed clock): the TTL monitor only knows real time.
   */
  ttlGraceMs?: number;
}

const COLLECTION = 'idempotency_keys';
const DUPLICATE_KEY = 11000;
/** A claim loses its insert, then finds the winner gone (released): it tries again, this many times. */
const CLAIM_ATTEMPTS = 3;

/**
 * Idempotency records on MongoDB, one document per key. A claim is a single upsert whose filter only
 * matches a record that may be taken over (expired outcome, lapsed lease): the key's unique `_id` makes
 * exactly one of concurrent claims insert or update it, and the others fail with a duplicate key and read
 * the winner's record. Same conditions as the SQLite adapter.
 */
export class MongoIdempotencyStore implements IdempotencyStore {
  private readonly records: Collection<KeyRecord>;
  private indexes: Promise<void> | null = null;

  /** @param connection a connection to the scope's database; its owner closes it. */
  constructor(
    connection: Connection,
    private readonly options: MongoIdempotencyStoreOptions = {},
  ) {
    this.records = connection.collection<KeyRecord>(COLLECTION);
  }

  async claim(key: string, nowMs: number, leaseMs: number): Promise<ClaimResult> {
    await this.ensureIndexes();
    const leaseUntil = nowMs + leaseMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.records.updateOne(
          {
            _id: key,
            $nor: [
              { state: 'completed', expiresAt: { $gt: nowMs } },
              { state: 'in_flight', leaseUntil: { $gt: nowMs } },
            ],
          },
          {
            $set: { state: 'in_flight', leaseUntil, ...this.purgeAt(leaseUntil) },
            $unset: { expiresAt: '', response: '' },
          },
          { upsert: true },
        );
        return { claimed: true };
      } catch (error) {
        // By code, as MongoDB documents it (and without loading mongoose's values into this library).
        if ((error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
      }
      const record = await this.records.findOne({ _id: key });
      if (record) return { claimed: false, record: toIdempotencyRecord(record) };
      if (attempt >= CLAIM_ATTEMPTS)
        throw new Error(`Idempotency key ${key} keeps changing; claim abandoned`);
    }
  }

  async complete(key: string, response: StoredResponse, expiresAt: number): Promise<void> {
    await this.ensureIndexes();
    await this.records.updateOne(
      { _id: key },
      {
        $set: { state: 'completed', expiresAt, response, ...this.purgeAt(expiresAt) },
        $unset: { leaseUntil: '' },
      },
    );
  }

  async release(key: string): Promise<void> {
    await this.ensureIndexes();
    await this.records.deleteOne({ _id: key, state: 'in_flight' });
  }

  async purgeExpired(nowMs: number): Promise<number> {
    await this.ensureIndexes();
    const { deletedCount } = await this.records.deleteMany({
      $or: [
        { state: 'completed', expiresAt: { $lte: nowMs } },
        { state: 'in_flight', leaseUntil: { $lte: nowMs } },
      ],
    });
    return deletedCount;
  }

  private purgeAt(until: number): Pick<KeyRecord, 'purgeAt'> {
    const grace = this.options.ttlGraceMs;
    return grace === undefined ? {} : { purgeAt: new Date(until + grace) };
  }

  private ensureIndexes(): Promise<void> {
    if (!this.indexes) {
      const indexes: mongo.IndexDescription[] = [
        // One per branch of purgeExpired's $or.
        { key: { expiresAt: 1 }, name: 'expires_at', sparse: true },
        { key: { leaseUntil: 1 }, name: 'lease_until', sparse: true },
      ];
      if (this.options.ttlGraceMs !== undefined) {
        indexes.push({ key: { purgeAt: 1 }, name: 'purge_at_ttl', expireAfterSeconds: 0 });
      }
      this.indexes = this.records.createIndexes(indexes).then(() => undefined);
      this.indexes.catch(() => (this.indexes = null));
    }
    return this.indexes;
  }
}

function toIdempotencyRecord(record: KeyRecord): IdempotencyRecord {
  if (record.state === 'completed') {
    return {
      state: 'completed',
      response: record.response ?? { status: 500, headers: {}, body: '' },
      expiresAt: record.expiresAt ?? 0,
    };
  }
  return { state: 'in_flight', leaseUntil: record.leaseUntil ?? 0 };
}
