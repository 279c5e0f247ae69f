import type { SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import type { LeaseTerm, Leases } from '../leases.port';

/**
 * Leases of the embedded runtime: a table in the control scope's SQLite file, shared by every process on
 * DATA_DIR. One UPSERT grants or renews under SQLite's write lock, so concurrent acquisitions from several
 * processes see each other's terms. Times are the processes' clock (`now`): they run on one machine.
 */
export class SqliteLeases implements Leases {
  private readonly grant: Statement;
  private readonly end: Statement;

  constructor(
    db: SqliteDatabase,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS leases (
        name          TEXT    NOT NULL PRIMARY KEY,
        holder        TEXT,
        fencing_token INTEGER NOT NULL,
        expires_at    INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
    this.grant = db.prepare(`
      INSERT INTO leases (name, holder, fencing_token, expires_at) VALUES (@name, @holder, 1, @now + @ttl)
      ON CONFLICT (name) DO UPDATE SET
        fencing_token = CASE WHEN leases.holder = excluded.holder AND leases.expires_at > @now
                             THEN leases.fencing_token ELSE leases.fencing_token + 1 END,
        holder = excluded.holder,
        expires_at = excluded.expires_at
      WHERE leases.holder IS NULL OR leases.holder = excluded.holder OR leases.expires_at <= @now
      RETURNING fencing_token`);
    this.end = db.prepare(
      'UPDATE leases SET holder = NULL, expires_at = @now WHERE name = @name AND holder = @holder',
    );
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<LeaseTerm | null> {
    const row = this.grant.get({ name, holder, ttl: Math.ceil(ttlMs), now: this.now() }) as
      { fencing_token: number } | undefined;
    return row ? { fencingToken: row.fencing_token } : null;
  }

  async release(name: string, holder: string): Promise<void> {
    this.end.run({ name, holder, now: this.now() });
  }
}
