import { Pool } from 'pg';

export interface PostgresPoolOptions {
  /**
   * Connections this pool may open (default 4). A topology shares the server's `max_connections` (100 by
   * default, a few kept for superusers): the sum over every process of every pool's `max` must stay below it,
   * so each store gets a few and waits for a free one rather than opening more.
   */
  max?: number;
  /** The schema the pool's sessions read and write (their search_path), e.g. one per environment. */
  schema?: string;
  /** Shown in pg_stat_activity, to tell which process holds which connections. */
  applicationName?: string;
  /** How long a connection stays open unused before the pool closes it (default 30 s). */
  idleTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * A node-postgres pool for the stores of one scope. Its owner closes it (`pool.end()`) after the stores.
 * An idle connection the server drops (a restart, a timeout) is reported on the pool's `error` event, which
 * would otherwise end the process: it is logged here, and the next query opens a new connection.
 */
export function openPostgresPool(connectionString: string, options: PostgresPoolOptions = {}): Pool {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema))
    throw new Error(`Invalid schema name ${options.schema}`);
  const pool = new Pool({
    connectionString,
    max: options.max ?? 4,
    idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
    application_name: options.applicationName,
    ...(options.schema !== undefined && { options: `-c search_path=${options.schema}` }),
  });
  pool.on('error', (error) => {
    process.stderr.write(`PostgreSQL: an idle connection failed and was closed: ${error.message}\n`);
  });
  // A client whose connection ends (the server restarted) emits 'error' even while checked out, when the
  // pool's own listener above is off it: unheard, that event ends the process. The query in flight, or the
  // next one, fails with the same error for its caller, who releases the client as broken.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Creates `schema` when missing (a role with privileges on it only will do once it exists). Processes start
 * together: of concurrent creations one wins, and the others' unique-index error (23505; IF NOT EXISTS looks
 * before it inserts) or duplicate-schema error (42P06) means the schema is there.
 */
export async function ensurePostgresSchema(pool: Pool, schema: string): Promise<void> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name ${schema}`);
  const { rowCount } = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (rowCount) return;
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw error;
  }
}
