import type { Pool, PoolClient } from 'pg';

/**
 * One step of a PostgreSQL component's schema. Steps are applied in version order, each in its own transaction with
 * the row that records it, so a step either happened or did not.
 *
 * Schemas change by expand, then contract: a step only adds (tables, nullable columns, indexes) while
 * processes of the previous release may still be running against the same database; what the new release no
 * longer reads is dropped by a later step, in a release after every process stopped using it. A process
 * therefore accepts a schema newer than the steps it knows (a rolling deploy, or a rollback, runs beside it).
 */
export interface Migration {
  version: number;
  description: string;
  /** SQL run in the step's transaction (several statements may be separated by semicolons). */
  sql: string;
}

/** The first of the two keys of every advisory lock taken here ("CIP\0"); the second names the component. */
const LOCK_NAMESPACE = 0x43495000;
/** The lock under which `schema_migrations` itself is created (no component hashes to it in practice). */
const BOOTSTRAP_LOCK = 0;

/** A component's own advisory lock key: 32-bit FNV-1a of its name, as a signed int4. */
export function migrationLockKey(component: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(component, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/**
 * Brings `component`'s schema up to the last of `migrations` (returning the versions this call applied), under a session advisory lock of its own
 * (`pg_advisory_lock(namespace, key of component)`): of several processes starting at once, one applies the
 * steps and the others wait for it, then find them applied. Steps are recorded in
 * `schema_migrations(component, version)` in the pool's schema (its search_path).
 *
 * Here, in the runtime every store library depends on, so that the read store, the idempotency store and
 * the personal-data key store (in the eventing library) share one runner; the event store's adapter can too.
 */
export async function migrate(
  pool: Pool,
  component: string,
  migrations: readonly Migration[],
): Promise<number[]> {
  const steps = [...migrations].sort((a, b) => a.version - b.version);
  for (let i = 1; i < steps.length; i++) {
    if (steps[i].version === steps[i - 1].version)
      throw new Error(`Migration ${component} v${steps[i].version} is declared twice`);
  }
  const client = await pool.connect();
  let broken: Error | undefined;
  const ran: number[] = [];
  try {
    await withAdvisoryLock(client, BOOTSTRAP_LOCK, () =>
      client.query(`
        CREATE TABLE IF NOT EXISTS schema_migrations (
          component   text        NOT NULL,
          version     integer     NOT NULL,
          description text        NOT NULL,
          applied_at  timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (component, version)
        )`),
    );
    await withAdvisoryLock(client, migrationLockKey(component), async () => {
      const { rows } = await client.query<{ version: number }>(
        'SELECT version FROM schema_migrations WHERE component = $1',
        [component],
      );
      const applied = new Set(rows.map((row) => row.version));
      for (const step of steps) {
        if (applied.has(step.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(step.sql);
          await client.query(
            'INSERT INTO schema_migrations (component, version, description) VALUES ($1, $2, $3)',
            [component, step.version, step.description],
          );
          await client.query('COMMIT');
          ran.push(step.version);
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new Error(`Migration ${component} v${step.version} (${step.description}) failed`, {
            cause: error,
          });
        }
      }
    });
    return ran;
  } catch (error) {
    broken = error as Error;
    throw error;
  } finally {
    // A client whose session may still hold the lock (an unlock that failed) is closed, which releases it.
    client.release(broken);
  }
}

async function withAdvisoryLock<T>(client: PoolClient, key: number, body: () => Promise<T>): Promise<T> {
  await client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_NAMESPACE, key]);
  try {
    return await body();
  } finally {
    await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_NAMESPACE, key]);
  }
}
