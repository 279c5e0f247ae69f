import type { Pool } from 'pg';
import type {
  ClaimResult,
  IdempotencyRecord,
  IdempotencyStore,
  StoredResponse,
} from '../idempotency-store.port';
import { migrate, type Migration } from '@cip/shared/runtime';

/**
 * The idempotency store's schema. `state` is `in_flight` (a claim, with its lease), `completed` (an outcome,
 * until `expires_at`) or `ran` (its command ran and its outcome was never stored: `outcome_lost` until
 * `expires_at`; written by the event store's transaction once keyed outcomes ride on it, see the class).
 * Times are epoch milliseconds, as the port counts them.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'idempotency_keys: claims with leases and stored outcomes',
    sql: `
      CREATE TABLE idempotency_keys (
        key            text   NOT NULL PRIMARY KEY,
        state          text   NOT NULL CHECK (state IN ('in_flight', 'completed', 'ran')),
        lease_until    bigint,
        claimed_at     bigint,
        correlation_id text,
        expires_at     bigint,
        status         integer,
        headers        jsonb,
        body           text
      );
      CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at) WHERE state <> 'in_flight';
      CREATE INDEX idempotency_keys_lease ON idempotency_keys (lease_until) WHERE state = 'in_flight';
    `,
  },
];

/** A claim loses its insert, then finds the winner gone (released): it tries again, this many times. */
const CLAIM_ATTEMPTS = 3;

interface KeyRow {
  state: 'in_flight' | 'completed' | 'ran';
  lease_until: string | null;
  expires_at: string | null;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
}

export interface PostgresIdempotencyStoreOptions {
  /** The name its schema steps are recorded under in `schema_migrations` (default `idempotency-store`). */
  component?: string;
}

/**
 * Idempotency records on PostgreSQL, one row per key, shared by every gateway process of the scope. A claim
 * is one INSERT ... ON CONFLICT DO UPDATE whose condition only lets it take over a row that may be taken
 * over (an expired outcome, a lapsed lease): the key's primary key serialises concurrent claims, so exactly
 * one inserts or updates the row and the others read the winner's record. Same conditions as the SQLite
 * and MongoDB adapters; claims are durable here, so they survive the process and lapse with their lease.
 *
 * Not yet: recording that a keyed command ran in the transaction of its first events (`track`/`hostRun`,
 * the `ran` state), which needs the PostgreSQL event store to run a writer inside its append transaction.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  private constructor(private readonly pool: Pool) {}

  static async open(
    pool: Pool,
    options: PostgresIdempotencyStoreOptions = {},
  ): Promise<PostgresIdempotencyStore> {
    await migrate(pool, options.component ?? 'idempotency-store', MIGRATIONS);
    return new PostgresIdempotencyStore(pool);
  }

  async claim(key: string, nowMs: number, leaseMs: number, correlationId?: string): Promise<ClaimResult> {
    for (let attempt = 1; ; attempt++) {
      const claimed = await this.pool.query(
        `INSERT INTO idempotency_keys AS k (key, state, lease_until, claimed_at, correlation_id)
         VALUES ($1, 'in_flight', $2, $3, $4)
         ON CONFLICT (key) DO UPDATE SET
           state = 'in_flight', lease_until = excluded.lease_until, claimed_at = excluded.claimed_at,
           correlation_id = excluded.correlation_id,
           expires_at = NULL, status = NULL, headers = NULL, body = NULL
         WHERE NOT (
           (k.state IN ('completed', 'ran') AND k.expires_at > $3)
           OR (k.state = 'in_flight' AND k.lease_until > $3))`,
        [key, nowMs + leaseMs, nowMs, correlationId ?? null],
      );
      if (claimed.rowCount === 1) return { claimed: true };
      const { rows } = await this.pool.query<KeyRow>(
        `SELECT state, lease_until, expires_at, status, headers, body FROM idempotency_keys WHERE key = $1`,
        [key],
      );
      if (rows[0]) return { claimed: false, record: toIdempotencyRecord(rows[0]) };
      if (attempt >= CLAIM_ATTEMPTS)
        throw new Error(`Idempotency key ${key} keeps changing; claim abandoned`);
    }
  }

  async complete(key: string, response: StoredResponse, expiresAt: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO idempotency_keys AS k (key, state, expires_at, status, headers, body)
       VALUES ($1, 'completed', $2, $3, $4, $5)
       ON CONFLICT (key) DO UPDATE SET
         state = 'completed', lease_until = NULL, expires_at = excluded.expires_at,
         status = excluded.status, headers = excluded.headers, body = excluded.body`,
      [key, expiresAt, response.status, JSON.stringify(response.headers), response.body],
    );
  }

  async release(key: string): Promise<void> {
    await this.pool.query(`DELETE FROM idempotency_keys WHERE key = $1 AND state = 'in_flight'`, [key]);
  }

  async purgeExpired(nowMs: number): Promise<number> {
    // One branch per partial index.
    const { rowCount } = await this.pool.query(
      `DELETE FROM idempotency_keys
       WHERE (state <> 'in_flight' AND expires_at <= $1) OR (state = 'in_flight' AND lease_until <= $1)`,
      [nowMs],
    );
    return rowCount ?? 0;
  }
}

function toIdempotencyRecord(row: KeyRow): IdempotencyRecord {
  if (row.state === 'ran') return { state: 'outcome_lost' };
  if (row.state === 'completed') {
    return {
      state: 'completed',
      response: { status: row.status ?? 500, headers: row.headers ?? {}, body: row.body ?? '' },
      expiresAt: Number(row.expires_at ?? 0),
    };
  }
  return { state: 'in_flight', leaseUntil: Number(row.lease_until ?? 0) };
}
