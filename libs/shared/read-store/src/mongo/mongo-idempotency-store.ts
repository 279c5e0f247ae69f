import { DomainError } from '@cip/shared/contracts';
import type { Collection, Connection, mongo } from 'mongoose';
import type {
  ClaimResult,
  IdempotencyRecord,
  IdempotencyStore,
  StoredResponse,
} from '../idempotency-store.port';

interface KeyRecord {
  _id: string;
  /** `ran`: a claim whose command ran (its events are in the log) and whose outcome was never stored. */
  state: 'in_flight' | 'completed' | 'ran';
  leaseUntil?: number;
  /** An in-flight claim's request id, which its command's events carry (`commandRan`), and when it was made. */
  correlationId?: string;
  claimedAt?: number;
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
  /**
   * Whether events carrying a correlation id were appended (the event store's `hasEventsCorrelatedWith`): a
   * claim whose lease passed without an outcome (its gateway died) is only taken over when its command did
   * not run; when it did, the key answers `outcome_lost` for the retention instead of running it again.
   * Without it such a claim is taken over blindly, as before.
   */
  commandRan?(correlationId: string): Promise<boolean>;
  /** How long a claim that ran without an outcome refuses its key, from its claim (default 24 hours). */
  retentionMs?: number;
}

const COLLECTION = 'idempotency_keys';
const DUPLICATE_KEY = 11000;
/** A claim loses its insert, then finds the winner gone (released): it tries again, this many times. */
const CLAIM_ATTEMPTS = 3;
/** What a claim writes: a fresh in-flight record. */
type ClaimUpdate = { $set: Partial<KeyRecord>; $unset: Partial<Record<keyof KeyRecord, ''>> };
const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

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

  async claim(key: string, nowMs: number, leaseMs: number, correlationId?: string): Promise<ClaimResult> {
    await this.ensureIndexes();
    const leaseUntil = nowMs + leaseMs;
    // A claim that says which events its command writes is kept past its lease, for its key's retention: a
    // retry of it, however late, is answered by what its command did (`takeOver`).
    const kept = correlationId !== undefined && this.options.commandRan !== undefined;
    const claimed: ClaimUpdate = {
      $set: {
        state: 'in_flight' as const,
        leaseUntil,
        claimedAt: nowMs,
        ...(correlationId !== undefined && { correlationId }),
        ...this.purgeAt(kept ? nowMs + this.retentionMs : leaseUntil),
      },
      $unset: { expiresAt: '', response: '', ...(correlationId === undefined && { correlationId: '' }) },
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.records.updateOne(
          {
            _id: key,
            $nor: [
              { state: { $in: ['completed', 'ran'] }, expiresAt: { $gt: nowMs } },
              { state: 'in_flight', leaseUntil: { $gt: nowMs } },
              // A lapsed claim that says which events its command wrote is looked at first (`takeOver`).
              ...(this.options.commandRan
                ? [{ state: 'in_flight' as const, correlationId: { $exists: true } }]
                : []),
            ],
          },
          claimed,
          { upsert: true },
        );
        return { claimed: true };
      } catch (error) {
        // By code, as MongoDB documents it (and without loading mongoose's values into this library).
        if ((error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
      }
      const record = await this.records.findOne({ _id: key });
      if (record?.state === 'in_flight' && (record.leaseUntil ?? 0) <= nowMs && record.correlationId) {
        const taken = await this.takeOver(record, nowMs, claimed);
        if (taken) return taken;
      } else if (record) {
        return { claimed: false, record: toIdempotencyRecord(record) };
      }
      if (attempt >= CLAIM_ATTEMPTS)
        throw new Error(`Idempotency key ${key} keeps changing; claim abandoned`);
    }
  }

  /**
   * A claim whose lease passed without an outcome (its gateway died, or its command outlived the lease): if
   * its command appended events, it ran and must not run again (`ran`, answered `outcome_lost`); if not, the
   * claim is taken over. Either only if the record is still the one looked at (its lease and request id), so
   * of two gateways doing this at once one decides and the other reads what it decided (undefined).
   */
  private async takeOver(
    record: KeyRecord,
    nowMs: number,
    claimed: ClaimUpdate,
  ): Promise<ClaimResult | undefined> {
    const { commandRan } = this.options;
    const same = {
      _id: record._id,
      state: 'in_flight' as const,
      leaseUntil: record.leaseUntil,
      correlationId: record.correlationId,
    };
    const expiresAt = (record.claimedAt ?? 0) + this.retentionMs;
    // Past its retention the key is free, whatever its command did.
    if (commandRan && expiresAt > nowMs && (await this.ran(commandRan, record.correlationId as string))) {
      const marked = await this.records.updateOne(same, {
        $set: { state: 'ran', expiresAt, ...this.purgeAt(expiresAt) },
        $unset: { leaseUntil: '', claimedAt: '' },
      });
      return marked.modifiedCount === 1 ? { claimed: false, record: { state: 'outcome_lost' } } : undefined;
    }
    const taken = await this.records.updateOne(same, claimed);
    return taken.modifiedCount === 1 ? { claimed: true } : undefined;
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
        { state: { $in: ['completed', 'ran'] }, expiresAt: { $lte: nowMs } },
        // A lapsed claim that says which events its command writes waits for a retry until its retention ends.
        {
          state: 'in_flight',
          leaseUntil: { $lte: nowMs },
          $or: [{ correlationId: { $exists: false } }, { claimedAt: { $lte: nowMs - this.retentionMs } }],
        },
      ],
    });
    return deletedCount;
  }

  /** What the event store says; when it cannot tell (its index is behind or off), neither can the claim. */
  private async ran(commandRan: (correlationId: string) => Promise<boolean>, correlationId: string) {
    try {
      return await commandRan(correlationId);
    } catch (error) {
      const refusal = new DomainError(
        'service_unavailable',
        'Whether an earlier identical request with this idempotency key ran cannot be told now; retry later',
      );
      throw Object.assign(refusal, { cause: error });
    }
  }

  private get retentionMs(): number {
    return this.options.retentionMs ?? DEFAULT_RETENTION_MS;
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
  if (record.state === 'ran') return { state: 'outcome_lost' };
  if (record.state === 'completed') {
    return {
      state: 'completed',
      response: record.response ?? { status: 500, headers: {}, body: '' },
      expiresAt: record.expiresAt ?? 0,
    };
  }
  return { state: 'in_flight', leaseUntil: record.leaseUntil ?? 0 };
}
