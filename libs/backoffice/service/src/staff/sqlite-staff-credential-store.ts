import { openSqliteDatabase, type SqliteDatabase } from '@cip/shared/runtime';
import { join } from 'node:path';
import {
  StaffSeals,
  type OpenStaffCredentialStore,
  type SealedCredentials,
  type SealedInvitation,
  type StaffCredentialStore,
  type StoredCredentials,
  type StoredInvitation,
  type StoredSession,
} from './staff-credential-store.port';

/** The staff credential store of the embedded runtime, beside the scopes' files under DATA_DIR. */
export const staffCredentialsFile = (dataDir: string) => join(dataDir, 'staff-credentials.sqlite');

/**
 * The embedded runtime's staff credential store (`StaffCredentialStore`): a SQLite file of its own
 * (`staff-credentials.sqlite`), fsynced on every commit. Synchronous underneath; the port is async for the
 * MongoDB adapter.
 */
export class SqliteStaffCredentialStore implements StaffCredentialStore {
  private readonly seals: StaffSeals;

  private constructor(
    private readonly db: SqliteDatabase,
    masterKey: Buffer,
  ) {
    this.seals = new StaffSeals(masterKey);
    db.exec(`
      CREATE TABLE IF NOT EXISTS credentials (
        staff_id TEXT PRIMARY KEY, password TEXT NOT NULL, totp TEXT NOT NULL, last_totp_step INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS invitations (
        token_hash TEXT PRIMARY KEY, staff_id TEXT NOT NULL, totp TEXT NOT NULL,
        expires_at TEXT NOT NULL, used_at TEXT
      );
      CREATE TABLE IF NOT EXISTS sessions (
        session_id TEXT PRIMARY KEY, id_hash TEXT NOT NULL UNIQUE, staff_id TEXT NOT NULL,
        created_at TEXT NOT NULL, last_seen_at TEXT NOT NULL, ended_at TEXT
      );
      CREATE INDEX IF NOT EXISTS sessions_of_staff ON sessions (staff_id) WHERE ended_at IS NULL;
    `);
  }

  static open(file: string, masterKey: Buffer): SqliteStaffCredentialStore {
    return new SqliteStaffCredentialStore(openSqliteDatabase(file), masterKey);
  }

  /** Opens the store in `file` once the master key is known (`BackofficeOptions.openCredentials`). */
  static opener(file: string): OpenStaffCredentialStore {
    return async (masterKey) => SqliteStaffCredentialStore.open(file, masterKey);
  }

  async close(): Promise<void> {
    this.db.close();
  }

  async saveInvitation(tokenHash: string, invitation: Omit<StoredInvitation, 'usedAt'>): Promise<void> {
    const sealed = this.seals.sealInvitation(invitation);
    this.db
      .prepare('INSERT INTO invitations (token_hash, staff_id, totp, expires_at) VALUES (?, ?, ?, ?)')
      .run(tokenHash, sealed.staffId, sealed.totp, sealed.expiresAt);
  }

  async invitation(tokenHash: string): Promise<StoredInvitation | null> {
    const row = this.db
      .prepare(
        `SELECT staff_id AS staffId, totp, expires_at AS expiresAt, used_at AS usedAt
         FROM invitations WHERE token_hash = ?`,
      )
      .get(tokenHash) as SealedInvitation | undefined;
    return row ? this.seals.openInvitation(row) : null;
  }

  /** The claim and the credentials in one transaction. */
  async acceptInvitation(
    tokenHash: string,
    staffId: string,
    credentials: StoredCredentials,
    at: string,
  ): Promise<boolean> {
    return this.db.transaction(() => {
      const used = this.db
        .prepare(
          'UPDATE invitations SET used_at = ? WHERE token_hash = ? AND staff_id = ? AND used_at IS NULL',
        )
        .run(at, tokenHash, staffId);
      if (used.changes !== 1) return false;
      const sealed = this.seals.sealCredentials(staffId, credentials);
      this.db
        .prepare(
          `INSERT INTO credentials (staff_id, password, totp, last_totp_step) VALUES (?, ?, ?, ?)
           ON CONFLICT (staff_id) DO UPDATE SET password = excluded.password, totp = excluded.totp,
             last_totp_step = excluded.last_totp_step`,
        )
        .run(staffId, sealed.password, sealed.totp, sealed.lastTotpStep);
      return true;
    })();
  }

  async credentials(staffId: string): Promise<StoredCredentials | null> {
    const row = this.db
      .prepare('SELECT password, totp, last_totp_step AS lastTotpStep FROM credentials WHERE staff_id = ?')
      .get(staffId) as SealedCredentials | undefined;
    return row ? this.seals.openCredentials(staffId, row) : null;
  }

  async useTotpStep(staffId: string, step: number): Promise<boolean> {
    return (
      this.db
        .prepare('UPDATE credentials SET last_totp_step = ? WHERE staff_id = ? AND last_totp_step < ?')
        .run(step, staffId, step).changes === 1
    );
  }

  async createSession(idHash: string, session: Omit<StoredSession, 'endedAt'>): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO sessions (session_id, id_hash, staff_id, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(session.sessionId, idHash, session.staffId, session.createdAt, session.lastSeenAt);
  }

  async sessionByHash(idHash: string): Promise<StoredSession | null> {
    const row = this.db
      .prepare(
        'SELECT session_id, staff_id, created_at, last_seen_at, ended_at FROM sessions WHERE id_hash = ?',
      )
      .get(idHash) as
      | {
          session_id: string;
          staff_id: string;
          created_at: string;
          last_seen_at: string;
          ended_at: string | null;
        }
      | undefined;
    return row
      ? {
          sessionId: row.session_id,
          staffId: row.staff_id,
          createdAt: row.created_at,
          lastSeenAt: row.last_seen_at,
          endedAt: row.ended_at,
        }
      : null;
  }

  async touchSession(sessionId: string, at: string): Promise<void> {
    this.db
      .prepare(
        'UPDATE sessions SET last_seen_at = ? WHERE session_id = ? AND ended_at IS NULL AND last_seen_at < ?',
      )
      .run(at, sessionId, at);
  }

  async endSession(sessionId: string, at: string): Promise<boolean> {
    return (
      this.db
        .prepare('UPDATE sessions SET ended_at = ? WHERE session_id = ? AND ended_at IS NULL')
        .run(at, sessionId).changes === 1
    );
  }

  async endSessionsOf(staffId: string, at: string): Promise<number> {
    return this.db
      .prepare('UPDATE sessions SET ended_at = ? WHERE staff_id = ? AND ended_at IS NULL')
      .run(at, staffId).changes;
  }
}
