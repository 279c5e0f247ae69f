import type { Pool } from 'pg';

/**
 * A versioned SQL migration of one component's tables (the event store's, a read store's). Versions count
 * from 1 in the order they run; a migration once released is never edited, only followed by another.
 *
 * Schema changes are expand-then-contract: a release adds (a column with a default, a table, an index) in a
 * way the previous release still runs against, and only a later release, once no process of the previous
 * one is left, drops or renames what the new code stopped using. During a rolling deployment old and new
 * processes share the database, and whichever starts first migrates it.
 */
export interface PostgresMigration {
  version: number;
  name: string;
  sql: string;
}

/** The pg_advisory_xact_lock key migrations run under: one for every component, so they never interleave. */
export const MIGRATION_LOCK_KEY = 0x63_69_70_6d; // 'cipm'

/**
 * Runs the migrations of `component` not yet applied, in one transaction under a transaction-level advisory
 * lock: of two processes starting at once one migrates, the other waits for its commit, then finds every
 * version applied and runs nothing. DDL is transactional in PostgreSQL, so a migration that fails leaves
 * nothing behind (a statement that cannot run in a transaction, CREATE INDEX CONCURRENTLY, does not belong
 * here). The versions applied are kept in `cip_schema_migrations`, one row per component and version.
 * Returns the versions this call applied.
 */
export async function runPostgresMigrations(
  pool: Pool,
  component: string,
  migrations: readonly PostgresMigration[],
): Promise<number[]> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${component}: migration ${m.name} should be version ${i + 1}`);
  });
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS cip_schema_migrations (
        component  text        NOT NULL,
        version    integer     NOT NULL,
        name       text        NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (component, version)
      )`);
    const { rows } = await client.query<{ version: number }>(
      'SELECT version FROM cip_schema_migrations WHERE component = $1',
      [component],
    );
    const applied = new Set(rows.map((r) => r.version));
    const newest = Math.max(0, ...applied);
    if (newest > migrations.length) {
      // A newer release migrated the database: this one may run on it only if the newer one only expanded.
      // It does run (rolling deployments need it), and says so.
      process.emitWarning(
        `${component}: the database is at schema version ${newest}, this release knows ${migrations.length}`,
      );
    }
    const ran: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO cip_schema_migrations (component, version, name) VALUES ($1, $2, $3)', [
        component,
        migration.version,
        migration.name,
      ]);
      ran.push(migration.version);
    }
    await client.query('COMMIT');
    return ran;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
