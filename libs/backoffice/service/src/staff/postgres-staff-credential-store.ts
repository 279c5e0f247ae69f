// Types only: importing this file must not load pg (`postgresStaffCredentials` loads it when it connects).
import { migrate, type Migration } from '@cip/shared/runtime';
import type { Pool } from 'pg';
import {
  StaffSeals,
  type SealedCredentials,
  type SealedInvitation,
  type StaffCredentialStore,
  type StoredCredentials,
  type StoredInvitation,
  type StoredSession,
} from './staff-credential-store.port';

/** The store's schema, the SQLite adapter's tables in a PostgreSQL schema of their own (`staff_credentials`). */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'staff credentials, invitations and sessions (sealed values, hashes of tokens and cookies)',
    sql: `
      CREATE TABLE credentials (
        staff_id       text NOT NULL PRIMARY KEY,
        password       text NOT NULL,
        totp           text NOT NULL,
        last_totp_step bigint NOT NULL
      );
      CREATE TABLE invitations (
        token_hash text NOT NULL PRIMARY KEY,
        staff_id   text NOT NULL,
        totp       text NOT NULL,
        expires_at text NOT NULL,
        used_at    text
      );
      CREATE TABLE sessions (
        session_id   text NOT NULL PRIMARY KEY,
        id_hash      text NOT NULL CONSTRAINT sessions_id_hash_unique UNIQUE,
        staff_id     text NOT NULL,
        created_at   text COLLATE "C" NOT NULL,
        last_seen_at text COLLATE "C" NOT NULL,
        ended_at     text
      );
      CREATE INDEX sessions_of_staff ON sessions (staff_id) WHERE ended_at IS NULL;
    `,
  },
];

const UNIQUE_VIOLATION = '23505';

interface SessionRow {
  session_id: string;
  staff_id: string;
  created_at: string;
  last_seen_at: string;
  ended_at: string | null;
}

/**
 * A duplicate key, as a message without the key (a token's or a cookie's hash, which PostgreSQL's own
 * message would repeat into the logs). 256-bit random values: a bug, never chance.
 */
function refusingDuplicates(what: string) {
  return (error: unknown): never => {
    if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw new Error(`${what} already exists`);
    throw error;
  };
}

export interface PostgresStaffCredentialStoreOptions {
  /** The name its schema steps are recorded under in `schema_migrations` (default `staff-credentials`). */
  component?: string;
  /** Whether `close` ends the pool too (the store's opener made it); otherwise its owner does. */
  closesPool?: boolean;
}

/**
 * The staff credential store (`StaffCredentialStore`) on PostgreSQL, on a pool whose search_path is a schema
 * of its own (`staff_credentials`, see `postgresStaffCredentials`), apart from the scopes' event and read-model
 * schemas. Values are sealed as the other adapters seal them (`StaffSeals`). A TOTP step, an ended session and
 * an invitation are claimed by one conditional UPDATE each: the row lock orders racing calls, and the ones
 * that wait re-check the condition and update nothing. An invitation's claim and the credentials it sets
 * commit in one transaction. Commits are durable once they resolve (`synchronous_commit` on, the default).
 */
export class PostgresStaffCredentialStore implements StaffCredentialStore {
  private readonly seals: StaffSeals;

  private constructor(
    private readonly pool: Pool,
    masterKey: Buffer,
    private readonly closesPool: boolean,
  ) {
    this.seals = new StaffSeals(masterKey);
  }

  /** The store on `pool`, whose search_path is the store's schema (which must exist); migrates it first. */
  static async open(
    pool: Pool,
    masterKey: Buffer,
    options: PostgresStaffCredentialStoreOptions = {},
  ): Promise<PostgresStaffCredentialStore> {
    await migrate(pool, options.component ?? 'staff-credentials', MIGRATIONS);
    return new PostgresStaffCredentialStore(pool, masterKey, options.closesPool ?? false);
  }

  async close(): Promise<void> {
    if (this.closesPool) await this.pool.end();
  }

  async saveInvitation(tokenHash: string, invitation: Omit<StoredInvitation, 'usedAt'>): Promise<void> {
    const sealed = this.seals.sealInvitation(invitation);
    await this.pool
      .query('INSERT INTO invitations (token_hash, staff_id, totp, expires_at) VALUES ($1, $2, $3, $4)', [
        tokenHash,
        sealed.staffId,
        sealed.totp,
        sealed.expiresAt,
      ])
      .catch(refusingDuplicates('An invitation with this token'));
  }

  async invitation(tokenHash: string): Promise<StoredInvitation | null> {
    const { rows } = await this.pool.query<SealedInvitation>(
      `SELECT staff_id AS "staffId", totp, expires_at AS "expiresAt", used_at AS "usedAt"
       FROM invitations WHERE token_hash = $1`,
      [tokenHash],
    );
    return rows[0] ? this.seals.openInvitation(rows[0]) : null;
  }

  /** The claim and the credentials in one transaction. */
  async acceptInvitation(
    tokenHash: string,
    staffId: string,
    credentials: StoredCredentials,
    at: string,
  ): Promise<boolean> {
    const sealed = this.seals.sealCredentials(staffId, credentials);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      try {
        const used = await client.query(
          'UPDATE invitations SET used_at = $1 WHERE token_hash = $2 AND staff_id = $3 AND used_at IS NULL',
          [at, tokenHash, staffId],
        );
        if (used.rowCount !== 1) {
          await client.query('ROLLBACK');
          return false;
        }
        await client.query(
          `INSERT INTO credentials (staff_id, password, totp, last_totp_step) VALUES ($1, $2, $3, $4)
           ON CONFLICT (staff_id) DO UPDATE SET password = excluded.password, totp = excluded.totp,
             last_totp_step = excluded.last_totp_step`,
          [staffId, sealed.password, sealed.totp, sealed.lastTotpStep],
        );
        await client.query('COMMIT');
        return true;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken = rollbackFailed));
        throw error;
      }
    } finally {
      // A connection whose rollback failed is closed rather than given to the next caller mid-transaction.
      client.release(broken);
    }
  }

  async credentials(staffId: string): Promise<StoredCredentials | null> {
    const { rows } = await this.pool.query<Omit<SealedCredentials, 'lastTotpStep'> & { step: string }>(
      'SELECT password, totp, last_totp_step AS step FROM credentials WHERE staff_id = $1',
      [staffId],
    );
    const row = rows[0];
    // bigint comes back as text: a TOTP step (seconds / 30) is far below 2^53.
    return row
      ? this.seals.openCredentials(staffId, {
          password: row.password,
          totp: row.totp,
          lastTotpStep: Number(row.step),
        })
      : null;
  }

  async useTotpStep(staffId: string, step: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE credentials SET last_totp_step = $1 WHERE staff_id = $2 AND last_totp_step < $1',
      [step, staffId],
    );
    return rowCount === 1;
  }

  async createSession(idHash: string, session: Omit<StoredSession, 'endedAt'>): Promise<void> {
    await this.pool
      .query(
        `INSERT INTO sessions (session_id, id_hash, staff_id, created_at, last_seen_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [session.sessionId, idHash, session.staffId, session.createdAt, session.lastSeenAt],
      )
      .catch(refusingDuplicates('A staff session with this id or cookie'));
  }

  async sessionByHash(idHash: string): Promise<StoredSession | null> {
    const { rows } = await this.pool.query<SessionRow>(
      'SELECT session_id, staff_id, created_at, last_seen_at, ended_at FROM sessions WHERE id_hash = $1',
      [idHash],
    );
    const row = rows[0];
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
    // ISO-8601 UTC instants of one format compare as their bytes (COLLATE "C").
    await this.pool.query(
      `UPDATE sessions SET last_seen_at = $1
       WHERE session_id = $2 AND ended_at IS NULL AND last_seen_at < $1`,
      [at, sessionId],
    );
  }

  async endSession(sessionId: string, at: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE sessions SET ended_at = $1 WHERE session_id = $2 AND ended_at IS NULL',
      [at, sessionId],
    );
    return rowCount === 1;
  }

  async endSessionsOf(staffId: string, at: string): Promise<number> {
    const { rowCount } = await this.pool.query(
      'UPDATE sessions SET ended_at = $1 WHERE staff_id = $2 AND ended_at IS NULL',
      [at, staffId],
    );
    return rowCount ?? 0;
  }
}
