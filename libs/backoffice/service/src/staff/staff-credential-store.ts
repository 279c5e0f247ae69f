import { openSqliteDatabase, SecretBox, type SqliteDatabase } from '@cip/shared/runtime';
import { hkdfSync } from 'node:crypto';
import { join } from 'node:path';

/** The staff credential store of the embedded runtime, beside the scopes' files under DATA_DIR. */
export const staffCredentialsFile = (dataDir: string) => join(dataDir, 'staff-credentials.sqlite');

/** One key per purpose from the platform's master key (PERSONAL_DATA_MASTER_KEY), by HKDF. */
export const deriveStaffKey = (masterKey: Buffer, purpose: 'sealing' | 'csrf') =>
  Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `cip staff credentials: ${purpose}`, 32));

export interface StoredCredentials {
  passwordHash: string;
  totpSecret: string;
  /** The last TOTP time step accepted: a code of that step or an earlier one is refused (replay). */
  lastTotpStep: number;
}

export interface StoredInvitation {
  staffId: string;
  totpSecret: string;
  expiresAt: string;
  usedAt: string | null;
}

export interface StoredSession {
  sessionId: string;
  staffId: string;
  createdAt: string;
  lastSeenAt: string;
  endedAt: string | null;
}

/**
 * Staff credentials, kept out of the event log: password hashes and TOTP secrets (sealed with AES-256-GCM
 * under a key derived from the master key, bound to the staff member and the field), invitation tokens and
 * session ids (SHA-256 hashes only: a copy of this file opens no session). A SQLite file of its own
 * (`staff-credentials.sqlite`), fsynced on every commit, so sessions and credentials survive a restart.
 */
export class StaffCredentialStore {
  private readonly box: SecretBox;

  private constructor(
    private readonly db: SqliteDatabase,
    masterKey: Buffer,
  ) {
    this.box = new SecretBox(deriveStaffKey(masterKey, 'sealing'));
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

  static open(file: string, masterKey: Buffer): StaffCredentialStore {
    return new StaffCredentialStore(openSqliteDatabase(file), masterKey);
  }

  close(): void {
    this.db.close();
  }

  saveInvitation(tokenHash: string, invitation: Omit<StoredInvitation, 'usedAt'>): void {
    this.db
      .prepare('INSERT INTO invitations (token_hash, staff_id, totp, expires_at) VALUES (?, ?, ?, ?)')
      .run(
        tokenHash,
        invitation.staffId,
        this.box.seal(invitation.totpSecret, `invitation:${invitation.staffId}`),
        invitation.expiresAt,
      );
  }

  invitation(tokenHash: string): StoredInvitation | null {
    const row = this.db
      .prepare('SELECT staff_id, totp, expires_at, used_at FROM invitations WHERE token_hash = ?')
      .get(tokenHash) as
      { staff_id: string; totp: string; expires_at: string; used_at: string | null } | undefined;
    if (!row) return null;
    return {
      staffId: row.staff_id,
      totpSecret: this.box.open(row.totp, `invitation:${row.staff_id}`),
      expiresAt: row.expires_at,
      usedAt: row.used_at,
    };
  }

  /**
   * Uses the invitation once and stores the credentials it set, in one transaction: false when it was used
   * in the meantime (two accepts at once: one wins).
   */
  acceptInvitation(tokenHash: string, staffId: string, credentials: StoredCredentials, at: string): boolean {
    return this.db.transaction(() => {
      const used = this.db
        .prepare(
          'UPDATE invitations SET used_at = ? WHERE token_hash = ? AND staff_id = ? AND used_at IS NULL',
        )
        .run(at, tokenHash, staffId);
      if (used.changes !== 1) return false;
      this.db
        .prepare(
          `INSERT INTO credentials (staff_id, password, totp, last_totp_step) VALUES (?, ?, ?, ?)
           ON CONFLICT (staff_id) DO UPDATE SET password = excluded.password, totp = excluded.totp,
             last_totp_step = excluded.last_totp_step`,
        )
        .run(
          staffId,
          this.box.seal(credentials.passwordHash, `password:${staffId}`),
          this.box.seal(credentials.totpSecret, `totp:${staffId}`),
          credentials.lastTotpStep,
        );
      return true;
    })();
  }

  credentials(staffId: string): StoredCredentials | null {
    const row = this.db
      .prepare('SELECT password, totp, last_totp_step FROM credentials WHERE staff_id = ?')
      .get(staffId) as { password: string; totp: string; last_totp_step: number } | undefined;
    if (!row) return null;
    return {
      passwordHash: this.box.open(row.password, `password:${staffId}`),
      totpSecret: this.box.open(row.totp, `totp:${staffId}`),
      lastTotpStep: row.last_totp_step,
    };
  }

  /** Marks a TOTP step used; false when it (or a later one) already was: the code is a replay. */
  useTotpStep(staffId: string, step: number): boolean {
    return (
      this.db
        .prepare('UPDATE credentials SET last_totp_step = ? WHERE staff_id = ? AND last_totp_step < ?')
        .run(step, staffId, step).changes === 1
    );
  }

  createSession(idHash: string, session: Omit<StoredSession, 'endedAt'>): void {
    this.db
      .prepare(
        'INSERT INTO sessions (session_id, id_hash, staff_id, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(session.sessionId, idHash, session.staffId, session.createdAt, session.lastSeenAt);
  }

  sessionByHash(idHash: string): StoredSession | null {
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

  touchSession(sessionId: string, at: string): void {
    this.db
      .prepare(
        'UPDATE sessions SET last_seen_at = ? WHERE session_id = ? AND ended_at IS NULL AND last_seen_at < ?',
      )
      .run(at, sessionId, at);
  }

  endSession(sessionId: string, at: string): boolean {
    return (
      this.db
        .prepare('UPDATE sessions SET ended_at = ? WHERE session_id = ? AND ended_at IS NULL')
        .run(at, sessionId).changes === 1
    );
  }

  /** Ends every open session of a staff member; how many there were. */
  endSessionsOf(staffId: string, at: string): number {
    return this.db
      .prepare('UPDATE sessions SET ended_at = ? WHERE staff_id = ? AND ended_at IS NULL')
      .run(at, staffId).changes;
  }
}
