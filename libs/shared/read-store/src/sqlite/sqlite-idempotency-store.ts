import { GroupCommit, type SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import type { ClaimResult, IdempotencyStore, StoredResponse } from '../idempotency-store.port';

interface Row {
  state: 'in_flight' | 'completed';
  lease_until: number | null;
  expires_at: number | null;
  status: number | null;
  headers: string | null;
  body: string | null;
}

interface Outcome {
  key: string;
  response: StoredResponse;
  expiresAt: number;
}

export interface SqliteIdempotencyStoreOptions {
  /**
   * A group commit on the same connection to ride on (the event store's `commitAlongside`): each outcome's
   * statement then goes into the event store's next transaction, sharing its fsync with the appends of
   * that turn instead of paying one of its own. Without it the store group-commits its outcomes itself.
   */
  commitAlongside?(write: () => void): Promise<void>;
}

/**
 * Idempotency records of the embedded runtime, in the environment's SQLite file.
 *
 * Claims are held in memory (the embedded runtime is one process serving the API for its DATA_DIR): a claim
 * is a lookup of the stored outcome plus an entry in the in-flight table, with no write and no fsync, and
 * concurrent claims of a key are settled by that table (one wins, the others see it in flight). Outcomes
 * are written through a group commit on the fsynced connection (the event store's, when given), so the
 * outcomes of many requests cost one transaction, and `complete` resolves once its outcome is durable (the response is only sent then: an
 * acknowledged outcome survives a kill -9). A claim dies with its process, as a durable claim would once
 * its lease passed: a request that was never acknowledged can be run again by its retry.
 * In-flight rows written by an earlier version are still honoured until their lease passes.
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  /** Claims of this process not yet completed: key → end of the lease (ms). */
  private readonly inFlight = new Map<string, number>();
  private readonly store: (outcome: Outcome) => Promise<void>;
  private readonly select: Statement;
  private readonly completeStatement: Statement;
  private readonly releaseStatement: Statement;
  private readonly purgeStatement: Statement;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteIdempotencyStoreOptions = {},
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS idempotency_keys (
        key         TEXT PRIMARY KEY,
        state       TEXT NOT NULL,
        lease_until INTEGER,
        expires_at  INTEGER,
        status      INTEGER,
        headers     TEXT,
        body        TEXT
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
    `);
    this.select = db.prepare('SELECT * FROM idempotency_keys WHERE key = ?');
    this.completeStatement = db.prepare(
      `INSERT INTO idempotency_keys (key, state, expires_at, status, headers, body) VALUES (?, 'completed', ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET state = 'completed', lease_until = NULL, expires_at = excluded.expires_at,
         status = excluded.status, headers = excluded.headers, body = excluded.body`,
    );
    const write = ({ key, response, expiresAt }: Outcome) =>
      this.completeStatement.run(
        key,
        expiresAt,
        response.status,
        JSON.stringify(response.headers),
        response.body,
      );
    const commitAlongside = options.commitAlongside;
    if (commitAlongside) {
      this.store = (outcome) => commitAlongside(() => write(outcome));
    } else {
      const outcomes = new GroupCommit<Outcome, void>((batch) => {
        db.transaction(() => batch.forEach(write))();
        return batch.map(() => undefined);
      });
      this.store = (outcome) => outcomes.submit(outcome);
    }
    this.releaseStatement = db.prepare(`DELETE FROM idempotency_keys WHERE key = ? AND state = 'in_flight'`);
    this.purgeStatement = db.prepare(
      `DELETE FROM idempotency_keys WHERE (state = 'completed' AND expires_at <= ?) OR (state = 'in_flight' AND lease_until <= ?)`,
    );
  }

  async claim(key: string, nowMs: number, leaseMs: number): Promise<ClaimResult> {
    // Synchronous from the lookup to the in-flight entry: no other claim of this process can interleave.
    const row = this.select.get(key) as Row | undefined;
    if (row?.state === 'completed' && (row.expires_at ?? 0) > nowMs) {
      return {
        claimed: false,
        record: {
          state: 'completed',
          expiresAt: row.expires_at ?? 0,
          response: {
            status: row.status ?? 500,
            headers: JSON.parse(row.headers ?? '{}'),
            body: row.body ?? '',
          },
        },
      };
    }
    if (row?.state === 'in_flight' && (row.lease_until ?? 0) > nowMs) {
      return { claimed: false, record: { state: 'in_flight', leaseUntil: row.lease_until ?? 0 } };
    }
    const leaseUntil = this.inFlight.get(key) ?? 0;
    if (leaseUntil > nowMs) return { claimed: false, record: { state: 'in_flight', leaseUntil } };
    this.inFlight.set(key, nowMs + leaseMs);
    return { claimed: true };
  }

  async complete(key: string, response: StoredResponse, expiresAt: number): Promise<void> {
    // The claim stays in flight until the outcome is durable: a repeat meanwhile is told to retry.
    await this.store({ key, response, expiresAt });
    this.inFlight.delete(key);
  }

  async release(key: string): Promise<void> {
    this.inFlight.delete(key);
    this.releaseStatement.run(key);
  }

  async purgeExpired(nowMs: number): Promise<number> {
    let purged = 0;
    for (const [key, leaseUntil] of this.inFlight) {
      if (leaseUntil <= nowMs) {
        this.inFlight.delete(key);
        purged++;
      }
    }
    return purged + this.purgeStatement.run(nowMs, nowMs).changes;
  }
}
