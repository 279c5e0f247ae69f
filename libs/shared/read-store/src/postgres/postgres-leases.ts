import type { Pool } from 'pg';
import { migrate, type Migration } from '@cip/shared/runtime';
import type { LeaseTerm, Leases } from '../leases.port';

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'cip_leases: named leases with their holder, fencing token and expiry',
    sql: `
      CREATE TABLE cip_leases (
        name          text        NOT NULL PRIMARY KEY,
        holder        text,
        fencing_token bigint      NOT NULL,
        expires_at    timestamptz NOT NULL
      );
    `,
  },
];

/**
 * Leases on PostgreSQL: one row per lease, granted or renewed by one `INSERT ... ON CONFLICT DO UPDATE ...
 * WHERE` (free, expired or the same holder), so of concurrent acquisitions exactly one wins the row. Expiry
 * is the database's clock (`now()`), never a process's.
 */
export class PostgresLeases implements Leases {
  private constructor(private readonly pool: Pool) {}

  /** Creates `cip_leases` in the pool's schema (the migration runner, component `leases`) and opens it. */
  static async open(pool: Pool): Promise<PostgresLeases> {
    await migrate(pool, 'leases', MIGRATIONS);
    return new PostgresLeases(pool);
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<LeaseTerm | null> {
    const { rows } = await this.pool.query<{ fencing_token: string }>(
      `INSERT INTO cip_leases AS lease (name, holder, fencing_token, expires_at)
         VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET
         fencing_token = CASE WHEN lease.holder = excluded.holder AND lease.expires_at > now()
                              THEN lease.fencing_token ELSE lease.fencing_token + 1 END,
         holder = excluded.holder,
         expires_at = excluded.expires_at
       WHERE lease.holder IS NULL OR lease.holder = excluded.holder OR lease.expires_at <= now()
       RETURNING fencing_token`,
      [name, holder, Math.ceil(ttlMs)],
    );
    return rows.length ? { fencingToken: Number(rows[0].fencing_token) } : null;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.pool.query(
      'UPDATE cip_leases SET holder = NULL, expires_at = now() WHERE name = $1 AND holder = $2',
      [name, holder],
    );
  }
}
