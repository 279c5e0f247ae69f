import { escapeIdentifier, type Pool } from 'pg';
import type {
  ClaimResult,
  IdempotencyRecord,
  IdempotencyStore,
  StoredResponse,
} from '../idempotency-store.port';
import { migrate, type Migration } from '@cip/shared/runtime';

/**
 * The idempotency store's schema. `state` is `in_flight` (a claim, with its lease), `completed` (an outcome,
 * until `expires_at`) or `ran` (its command's events are written, its outcome is not stored: in progress
 * while its lease lasts, then `outcome_lost` until `expires_at`; written in the event store's append
 * transaction by the witness, see the class).
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
  {
    version: 2,
    description: 'idempotency_keys: claims in flight by correlation id (the append witness marks them ran)',
    sql: `
      CREATE INDEX idempotency_keys_correlation ON idempotency_keys (correlation_id) WHERE state = 'in_flight';
    `,
  },
];

/** The gateway's retention of an outcome (IDEMPOTENCY_RETENTION_MS): a claim marked ran answers this long. */
const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

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

/** What the witness writes with: the event store's append transaction (`PostgresTransaction`). */
export interface PostgresWitnessTransaction {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** The witness the event store runs in its append transactions (`PostgresAppendWitness`). */
export interface PostgresIdempotencyWitness {
  /** The database of the claims' table: the event store's must be the same. */
  database: string;
  witness(correlationIds: readonly string[], transaction: PostgresWitnessTransaction): Promise<void>;
}

export interface PostgresIdempotencyStoreOptions {
  /** The name its schema steps are recorded under in `schema_migrations` (default `idempotency-store`). */
  component?: string;
  /**
   * The PostgreSQL event store's `witnessAppends`, on the same database: with it, a claim whose command's
   * events carry its correlation id (`claim`'s, the request id) is marked `ran` in the transaction that
   * writes them, so a retry after a crash between those events and the outcome finds `outcome_lost`
   * instead of running the command a second time. Refused (it throws) for an event store on another database.
   */
  witnessAppends?(witness: PostgresIdempotencyWitness): Promise<void> | void;
  /** How long a claim marked `ran` answers `outcome_lost` from its claim (default 24 h, the gateway's retention). */
  retentionMs?: number;
}

/**
 * Idempotency records on PostgreSQL, one row per key, shared by every gateway process of the scope. A claim
 * is one INSERT ... ON CONFLICT DO UPDATE whose condition only lets it take over a row that may be taken
 * over (an expired outcome, a lapsed lease): the key's primary key serialises concurrent claims, so exactly
 * one inserts or updates the row and the others read the winner's record. Same conditions as the SQLite
 * and MongoDB adapters; claims are durable here, so they survive the process and lapse with their lease.
 *
 * A keyed request's run is recorded with its events (`witnessAppends`, the PostgreSQL event store on the same
 * database): the claim keeps the request id its command's events carry (`correlation_id`), and the event
 * store's append transaction that writes events with that id turns the claim in flight into `ran`, after
 * its rows, before its commit. That mark is committed exactly when the command's first events are: a retry
 * after a crash between them and the outcome (`complete`, which replaces the mark) is told the request is in
 * progress until the claim's lease passes, then gets `outcome_lost`, never a second run; a transaction that
 * fails, or an append refused in it, marks nothing. The claim is durable and
 * the mark is made by correlation id, so it holds whichever process appends (the gateway's, or a service's of
 * the split topology): no `track` or `hostRun` is needed. Not guarded here, as in the MongoDB adapter: a first
 * run still going after its lease passed and a retry took the claim over (its request id then replaced).
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  private constructor(private readonly pool: Pool) {}

  static async open(
    pool: Pool,
    options: PostgresIdempotencyStoreOptions = {},
  ): Promise<PostgresIdempotencyStore> {
    await migrate(pool, options.component ?? 'idempotency-store', MIGRATIONS);
    if (options.witnessAppends) {
      // The event store's connection may have another search_path: the witness names the schema.
      const { rows } = await pool.query<{ database: string; schema: string }>(
        'SELECT current_database() AS database, current_schema() AS schema',
      );
      const table = `${escapeIdentifier(rows[0].schema)}.idempotency_keys`;
      const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
      await options.witnessAppends({
        database: rows[0].database,
        witness: async (correlationIds, transaction) => {
          await transaction.query(
            // The lease is kept: an identical request while the first still runs is told it is in progress.
            `UPDATE ${table} SET state = 'ran', expires_at = claimed_at + $2
             WHERE state = 'in_flight' AND correlation_id = ANY($1::text[])`,
            [correlationIds, retentionMs],
          );
        },
      });
    }
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
      if (rows[0]) return { claimed: false, record: toIdempotencyRecord(rows[0], nowMs) };
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

function toIdempotencyRecord(row: KeyRow, nowMs: number): IdempotencyRecord {
  // Ran, not answered: in progress while its lease lasts (its process may still answer), then lost.
  if (row.state === 'ran' && Number(row.lease_until ?? 0) <= nowMs) return { state: 'outcome_lost' };
  if (row.state === 'completed') {
    return {
      state: 'completed',
      response: { status: row.status ?? 500, headers: row.headers ?? {}, body: row.body ?? '' },
      expiresAt: Number(row.expires_at ?? 0),
    };
  }
  return { state: 'in_flight', leaseUntil: Number(row.lease_until ?? 0) };
}
