import type { SqliteDatabase } from '@cip/shared/runtime';
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

/** Idempotency records of the embedded runtime, in the environment's SQLite file. */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly select: Statement;
  private readonly upsertClaim: Statement;
  private readonly completeStatement: Statement;
  private readonly releaseStatement: Statement;
  private readonly purgeStatement: Statement;

  constructor(private readonly db: SqliteDatabase) {
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
    this.upsertClaim = db.prepare(
      `INSERT INTO idempotency_keys (key, state, lease_until) VALUES (?, 'in_flight', ?)
       ON CONFLICT (key) DO UPDATE SET state = 'in_flight', lease_until = excluded.lease_until,
         expires_at = NULL, status = NULL, headers = NULL, body = NULL`,
    );
    this.completeStatement = db.prepare(
      `UPDATE idempotency_keys SET state = 'completed', lease_until = NULL, expires_at = ?, status = ?, headers = ?, body = ?
       WHERE key = ?`,
    );
    this.releaseStatement = db.prepare(`DELETE FROM idempotency_keys WHERE key = ? AND state = 'in_flight'`);
    this.purgeStatement = db.prepare(
      `DELETE FROM idempotency_keys WHERE (state = 'completed' AND expires_at <= ?) OR (state = 'in_flight' AND lease_until <= ?)`,
    );
  }

  async claim(key: string, nowMs: number, leaseMs: number): Promise<ClaimResult> {
    // One synchronous transaction: no other claim of this process or another can interleave.
    return this.db
      .transaction((): ClaimResult => {
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
        this.upsertClaim.run(key, nowMs + leaseMs);
        return { claimed: true };
      })
      .immediate();
  }

  async complete(key: string, response: StoredResponse, expiresAt: number): Promise<void> {
    this.completeStatement.run(
      expiresAt,
      response.status,
      JSON.stringify(response.headers),
      response.body,
      key,
    );
  }

  async release(key: string): Promise<void> {
    this.releaseStatement.run(key);
  }

  async purgeExpired(nowMs: number): Promise<number> {
    return this.purgeStatement.run(nowMs, nowMs).changes;
  }
}
