import type { OpenStaffCredentialStore } from './staff-credential-store.port';

/** The MongoDB database of the staff credential store: its own, beside the scopes' `cip_<scope>`. */
export const STAFF_CREDENTIALS_DATABASE = 'cip_staff_credentials';

/**
 * The distributed runtime's staff credential store: `MongoStaffCredentialStore` on the database
 * `cip_staff_credentials` of `mongoUrl` (a replica set), on a connection of its own that `close` closes.
 * Loads mongoose only when called: the embedded runtime imports this library and never uses it.
 */
export function mongoStaffCredentials(options: {
  mongoUrl: string;
  /** The database; `STAFF_CREDENTIALS_DATABASE` unless a test keeps its own. */
  database?: string;
}): OpenStaffCredentialStore {
  return async (masterKey) => {
    const mongoose = (await import('mongoose')).default;
    const { MongoStaffCredentialStore } = await import('./mongo-staff-credential-store');
    const connection = await mongoose
      .createConnection(options.mongoUrl, { dbName: options.database ?? STAFF_CREDENTIALS_DATABASE })
      .asPromise();
    return MongoStaffCredentialStore.open(connection, masterKey, { closesConnection: true });
  };
}

/** The PostgreSQL schema of the staff credential store: its own, beside the scopes' schemas. */
export const STAFF_CREDENTIALS_SCHEMA = 'staff_credentials';

/**
 * The staff credential store on PostgreSQL: `PostgresStaffCredentialStore` in the schema `staff_credentials`
 * (created when missing; a role with privileges on that schema only will do once it exists) of `databaseUrl`,
 * on a pool of its own that `close` ends. Loads pg only when called. The dashboard's on STORE_DRIVER=postgres.
 */
export function postgresStaffCredentials(options: {
  databaseUrl: string;
  /** The schema; `STAFF_CREDENTIALS_SCHEMA` unless a test keeps its own. */
  schema?: string;
  /** Connections of the store's pool (default 2: sign-ins and session checks are few and short). */
  poolSize?: number;
}): OpenStaffCredentialStore {
  return async (masterKey) => {
    const schema = options.schema ?? STAFF_CREDENTIALS_SCHEMA;
    const { ensurePostgresSchema, openPostgresPool } = await import('@cip/shared/read-store/distributed');
    const { PostgresStaffCredentialStore } = await import('./postgres-staff-credential-store');
    const pool = openPostgresPool(options.databaseUrl, {
      schema,
      max: options.poolSize ?? 2,
      applicationName: 'cip-staff-credentials',
    });
    try {
      await ensurePostgresSchema(pool, schema);
      return await PostgresStaffCredentialStore.open(pool, masterKey, { closesPool: true });
    } catch (error) {
      await pool.end();
      throw error;
    }
  };
}
