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
