import { SecretBox } from '@cip/shared/runtime';
import { hkdfSync } from 'node:crypto';

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
 * Staff credentials, kept out of the event log: password hashes and TOTP secrets sealed (`StaffSeals`),
 * invitation tokens and session ids as SHA-256 hashes only (a copy of the store opens no session). Every
 * acknowledged write is durable, so sessions and credentials survive a restart. Adapters: SQLite
 * (`staff-credentials.sqlite`, embedded) and MongoDB (distributed); one contract suite runs against both.
 */
export interface StaffCredentialStore {
  saveInvitation(tokenHash: string, invitation: Omit<StoredInvitation, 'usedAt'>): Promise<void>;
  invitation(tokenHash: string): Promise<StoredInvitation | null>;
  /**
   * Uses the invitation once and stores the credentials it set, both or neither: false when it was used in
   * the meantime (two accepts at once: one wins) or belongs to another staff member.
   */
  acceptInvitation(
    tokenHash: string,
    staffId: string,
    credentials: StoredCredentials,
    at: string,
  ): Promise<boolean>;
  credentials(staffId: string): Promise<StoredCredentials | null>;
  /** Marks a TOTP step used; false when it (or a later one) already was: the code is a replay. */
  useTotpStep(staffId: string, step: number): Promise<boolean>;
  createSession(idHash: string, session: Omit<StoredSession, 'endedAt'>): Promise<void>;
  sessionByHash(idHash: string): Promise<StoredSession | null>;
  /** Restarts an open session's idle timer (never moves it back). */
  touchSession(sessionId: string, at: string): Promise<void>;
  /** Ends an open session; false when it had already ended. */
  endSession(sessionId: string, at: string): Promise<boolean>;
  /** Ends every open session of a staff member; how many there were. */
  endSessionsOf(staffId: string, at: string): Promise<number>;
  close(): Promise<void>;
}

/** Opens a credential store with the platform's master key (the runtime's choice of adapter). */
export type OpenStaffCredentialStore = (masterKey: Buffer) => Promise<StaffCredentialStore>;

/**
 * How every adapter seals: AES-256-GCM under a key derived from the master key, bound to the staff member
 * and the field (`password:<id>`, `totp:<id>`, `invitation:<id>`), so a sealed value moved to another
 * record or field does not open.
 */
export class StaffSeals {
  private readonly box: SecretBox;

  constructor(masterKey: Buffer) {
    this.box = new SecretBox(deriveStaffKey(masterKey, 'sealing'));
  }

  seal(field: 'password' | 'totp' | 'invitation', staffId: string, value: string): string {
    return this.box.seal(value, `${field}:${staffId}`);
  }

  open(field: 'password' | 'totp' | 'invitation', staffId: string, sealed: string): string {
    return this.box.open(sealed, `${field}:${staffId}`);
  }

  /** Credentials as every adapter stores them: password hash and TOTP secret sealed, the step as it is. */
  sealCredentials(staffId: string, credentials: StoredCredentials): SealedCredentials {
    return {
      password: this.seal('password', staffId, credentials.passwordHash),
      totp: this.seal('totp', staffId, credentials.totpSecret),
      lastTotpStep: credentials.lastTotpStep,
    };
  }

  openCredentials(staffId: string, sealed: SealedCredentials): StoredCredentials {
    return {
      passwordHash: this.open('password', staffId, sealed.password),
      totpSecret: this.open('totp', staffId, sealed.totp),
      lastTotpStep: sealed.lastTotpStep,
    };
  }

  /** An invitation as every adapter stores it: its TOTP secret sealed. */
  sealInvitation(invitation: Omit<StoredInvitation, 'usedAt'>): Omit<SealedInvitation, 'usedAt'> {
    return {
      staffId: invitation.staffId,
      totp: this.seal('invitation', invitation.staffId, invitation.totpSecret),
      expiresAt: invitation.expiresAt,
    };
  }

  openInvitation(sealed: SealedInvitation): StoredInvitation {
    return {
      staffId: sealed.staffId,
      totpSecret: this.open('invitation', sealed.staffId, sealed.totp),
      expiresAt: sealed.expiresAt,
      usedAt: sealed.usedAt,
    };
  }
}

export interface SealedInvitation {
  staffId: string;
  totp: string;
  expiresAt: string;
  usedAt: string | null;
}

export interface SealedCredentials {
  password: string;
  totp: string;
  lastTotpStep: number;
}
