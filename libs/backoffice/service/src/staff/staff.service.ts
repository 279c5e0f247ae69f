import type { StaffPrincipal, StaffRole, StaffView } from '@cip/backoffice/contract';
import {
  accountLocked,
  invalidCredentials,
  isLocked,
  staffDecider,
  type StaffCommand,
  type StaffRecord,
  UNKNOWN_EMAIL_STREAM_PREFIX,
  unknownEmailDecider,
  type UnknownEmailState,
} from '@cip/backoffice/domain';
import { renderStaff } from '@cip/backoffice/read-models';
import { DomainError } from '@cip/shared/contracts';
import { envelope, handleCommand, WrongExpectedRevisionError, type EventStore } from '@cip/shared/eventing';
import { type Clock, newId } from '@cip/shared/runtime';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type AuditActor, AuditTrailService, unknownActor } from '../audit/audit-trail.service';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, type PasswordHasher, scryptPasswords } from './passwords';
import { deriveStaffKey, type StaffCredentialStore } from './staff-credential-store.port';
import { normalizeEmail, type StaffDirectory } from './staff-directory';
import { newTotpSecret, totpStep, totpUri } from './totp';

export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;
export const SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
export const SESSION_ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60 * 1000;
const TOUCH_INTERVAL_MS = 60 * 1000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
/** 256 random bits, base64url: an invitation token or a session id. */
const randomToken = () => randomBytes(32).toString('base64url');
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface StaffServiceOptions {
  /** The dashboard's page for an invitation token (`<dashboard url>/invitations/<token>`). */
  invitationUrl(token: string): string;
  /** The platform's master key: the CSRF tokens' HMAC key is derived from it. */
  masterKey: Buffer;
  /** scrypt (`scryptPasswords`) unless a test counts the calls. */
  passwords?: PasswordHasher;
}

export interface PendingInvitation {
  email: string;
  name: string;
  role: StaffRole;
  totp: { secret: string; uri: string };
  expiresAt: string;
}

export interface SignedIn {
  staff: StaffView;
  csrfToken: string;
  /** The session cookie's value: given to the browser once, stored only as a hash. */
  sessionToken: string;
  principal: StaffPrincipal;
}

const actorOf = (staff: StaffRecord): AuditActor => ({
  id: staff.staffId,
  email: staff.email,
  role: staff.role,
});
const sessionTarget = (sessionId: string) => ({ type: 'session', id: sessionId });
/** The stream of an email no account has (its failed sign-ins and lockout): named by the email's hash. */
const unknownEmailStream = (email: string) => `${UNKNOWN_EMAIL_STREAM_PREFIX}${sha256(email)}`;
/** A staff id no account has: the credential lookup of an unknown email finds nothing, at the same cost. */
const NO_STAFF_ID = 'stf-none';

/**
 * Staff accounts, sign-in and sessions (docs/operator-api.md, "Staff, roles and sign-in"). State changes are
 * staff events in the control scope; credentials, invitation tokens and sessions are in the credential
 * store. Sign-in, failed sign-ins, lockouts and sign-outs are recorded in the audit trail here; the other
 * staff changes by the operator API's controllers (`audited`).
 */
export class StaffService {
  private readonly csrfKey: Buffer;
  private readonly passwords: PasswordHasher;

  constructor(
    private readonly store: EventStore,
    readonly directory: StaffDirectory,
    private readonly credentials: StaffCredentialStore,
    private readonly audit: AuditTrailService,
    private readonly clock: Clock,
    private readonly options: StaffServiceOptions,
  ) {
    this.csrfKey = deriveStaffKey(options.masterKey, 'csrf');
    this.passwords = options.passwords ?? scryptPasswords;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async execute(staffId: string, command: StaffCommand): Promise<StaffRecord> {
    const result = await handleCommand(this.store, staffDecider, staffId, command, {
      occurredAt: this.now(),
      correlationId: staffId,
    });
    await this.directory.catchUp();
    if (result.state.status === 'absent') throw new DomainError('not_found', 'Staff member was not found');
    return result.state;
  }

  private existing(staffId: string): StaffRecord {
    const staff = this.directory.get(staffId);
    if (!staff) throw new DomainError('not_found', `Staff member ${staffId} was not found`);
    return staff;
  }

  view(staff: StaffRecord): StaffView {
    return renderStaff(staff, this.now());
  }

  async list(): Promise<StaffView[]> {
    await this.directory.catchUp();
    return this.directory.list().map((staff) => this.view(staff));
  }

  async get(staffId: string): Promise<StaffView> {
    await this.directory.catchUp();
    return this.view(this.existing(staffId));
  }

  // ------------------------------------------------------------------------------------------------
  // Invitations
  // ------------------------------------------------------------------------------------------------

  /** Invites a staff member: the account (`invited`) and a one-time invitation link valid 72 hours. */
  async invite(
    input: { email: string; name: string; role: StaffRole },
    invitedBy: string | null,
  ): Promise<{ staff: StaffView; invitation: { url: string; expiresAt: string } }> {
    const email = normalizeEmail(input.email);
    const staffId = newId('stf');
    const now = this.now();
    // One account per email, across streams: a reservation stream appended only if it does not exist.
    try {
      await this.store.append(
        `stfmail-${sha256(email)}`,
        [
          envelope(
            { type: 'StaffEmailReserved', data: { staffId } },
            { occurredAt: now, correlationId: staffId },
          ),
        ],
        { expectedRevision: 'no_stream' },
      );
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        throw new DomainError('invalid_state_transition', 'A staff member with this email already exists', [
          { field: 'email', message: 'email is already taken by another staff member' },
        ]);
      }
      throw error;
    }
    const token = randomToken();
    const expiresAt = new Date(Date.parse(now) + INVITATION_TTL_MS).toISOString();
    await this.credentials.saveInvitation(sha256(token), { staffId, totpSecret: newTotpSecret(), expiresAt });
    const staff = await this.execute(staffId, {
      type: 'InviteStaff',
      data: { staffId, email, name: input.name, role: input.role, invitedBy, now },
    });
    return { staff: this.view(staff), invitation: { url: this.options.invitationUrl(token), expiresAt } };
  }

  /** The invitation while it is pending: unknown, used and expired ones are all `404 not_found`. */
  private async pending(token: string) {
    const gone = () => new DomainError('not_found', 'The invitation is not valid, was used or has expired');
    if (!TOKEN.test(token)) throw gone();
    const invitation = await this.credentials.invitation(sha256(token));
    if (
      !invitation ||
      invitation.usedAt !== null ||
      Date.parse(invitation.expiresAt) <= Date.parse(this.now())
    )
      throw gone();
    await this.directory.catchUp();
    const staff = this.directory.get(invitation.staffId);
    if (!staff || staff.status !== 'invited') throw gone();
    return { invitation, staff };
  }

  async invitation(token: string): Promise<PendingInvitation> {
    const { invitation, staff } = await this.pending(token);
    return {
      email: staff.email,
      name: staff.name,
      role: staff.role,
      totp: { secret: invitation.totpSecret, uri: totpUri(invitation.totpSecret, staff.email) },
      expiresAt: invitation.expiresAt,
    };
  }

  /** Sets the password and proves the second factor with a first code; the account becomes `active`. */
  async acceptInvitation(token: string, input: { password: string; code: string }): Promise<StaffView> {
    const { invitation, staff } = await this.pending(token);
    if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH) {
      throw new DomainError('validation_error', 'The password is too short or too long', [
        {
          field: 'password',
          message: `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
        },
      ]);
    }
    const step = totpStep(invitation.totpSecret, input.code, this.clock.now());
    if (step === null) {
      throw new DomainError('validation_error', 'The code is not the current one of the authenticator', [
        { field: 'code', message: 'code must be the 6 digits the authenticator app shows now' },
      ]);
    }
    const passwordHash = await this.passwords.hash(input.password);
    const stored = await this.credentials.acceptInvitation(
      sha256(token),
      staff.staffId,
      { passwordHash, totpSecret: invitation.totpSecret, lastTotpStep: step },
      this.now(),
    );
    if (!stored) throw new DomainError('not_found', 'The invitation is not valid, was used or has expired');
    const active = await this.execute(staff.staffId, { type: 'AcceptInvitation', data: { now: this.now() } });
    await this.audit.recordAs(actorOf(active), {
      action: 'staff.acceptInvitation',
      environment: null,
      target: { type: 'staff', id: active.staffId },
    });
    return this.view(active);
  }

  // ------------------------------------------------------------------------------------------------
  // Sign-in and sessions
  // ------------------------------------------------------------------------------------------------

  /**
   * Email, password and a TOTP code not used before. Every wrong case is the same `401 invalid_credentials`
   * and costs the same scrypt run; five in a row lock the account for 15 minutes (`423 account_locked`,
   * checked before anything else, so a locked account's guesses are not even tried). An email no account
   * has goes the same way, step for step: its failures are counted and locked out (in its own stream,
   * `stfunknown-<hash>`), its password is verified against a decoy hash, so neither the answers nor the
   * work tell an existing account from none.
   */
  async signIn(input: { email: string; password: string; code: string }): Promise<SignedIn> {
    await this.directory.catchUp();
    const email = normalizeEmail(input.email);
    const staff = this.directory.findByEmail(email);
    const now = this.now();
    const unknownStream = unknownEmailStream(email);
    const lockout = staff ?? this.directory.unknownEmail(unknownStream);
    const actor = staff ? actorOf(staff) : unknownActor(email);
    const targetId = staff?.staffId ?? 'unknown';
    if (isLocked(lockout, now)) {
      await this.audit.recordAs(actor, this.signInEntry(targetId, 'account_locked'));
      throw accountLocked(lockout, now);
    }
    const credentials = await this.credentials.credentials(staff?.staffId ?? NO_STAFF_ID);
    const passwordOk = await this.passwords.verify(
      input.password,
      credentials?.passwordHash ?? (await this.passwords.decoyHash()),
    );
    const step = credentials ? totpStep(credentials.totpSecret, input.code, this.clock.now()) : null;
    // The step is claimed only with the right password (a wrong one must not burn the code), atomically.
    const accepted =
      staff !== null &&
      passwordOk &&
      staff.status === 'active' &&
      step !== null &&
      (await this.credentials.useTotpStep(staff.staffId, step));
    if (!accepted) {
      const failed = staff
        ? await this.execute(staff.staffId, { type: 'RecordSignInFailure', data: { now } })
        : await this.recordUnknownEmailFailure(unknownStream, now);
      await this.audit.recordAs(actor, this.signInEntry(targetId, 'invalid_credentials'));
      if (isLocked(failed, now)) {
        await this.audit.recordAs(actor, {
          action: 'staff.lockout',
          environment: null,
          target: { type: 'staff', id: targetId },
        });
      }
      throw invalidCredentials();
    }
    // A fresh id at every sign-in, whatever cookie came with the request (no session fixation).
    const sessionToken = randomToken();
    const sessionId = newId('ses');
    const signedIn = await this.execute(staff.staffId, { type: 'SignIn', data: { sessionId, now } });
    await this.credentials.createSession(sha256(sessionToken), {
      sessionId,
      staffId: staff.staffId,
      createdAt: now,
      lastSeenAt: now,
    });
    await this.audit.recordAs(actorOf(signedIn), {
      ...this.signInEntry(sessionId),
      target: sessionTarget(sessionId),
    });
    const principal = { staffId: signedIn.staffId, email: signedIn.email, role: signedIn.role, sessionId };
    return { staff: this.view(signedIn), csrfToken: this.csrfTokenOf(sessionId), sessionToken, principal };
  }

  /** A failed sign-in with an email no account has, counted like an account's (`unknownEmailDecider`). */
  private async recordUnknownEmailFailure(streamId: string, now: string): Promise<UnknownEmailState> {
    const result = await handleCommand(
      this.store,
      unknownEmailDecider,
      streamId,
      { type: 'RecordSignInFailure', data: { now } },
      { occurredAt: now, correlationId: streamId },
    );
    await this.directory.catchUp();
    return result.state;
  }

  private signInEntry(targetId: string, errorCode?: string) {
    return {
      action: 'session.signIn',
      environment: null,
      target: { type: errorCode ? 'staff' : 'session', id: targetId },
      ...(errorCode ? { outcome: 'refused' as const, errorCode } : {}),
    };
  }

  /**
   * The staff member of a session cookie, or null: unknown, ended, idle for 30 minutes, older than 12 hours,
   * or its staff member no longer active. A live session's idle timer starts again.
   */
  async authenticate(sessionToken: string | undefined): Promise<StaffPrincipal | null> {
    if (!sessionToken || !TOKEN.test(sessionToken)) return null;
    const session = await this.credentials.sessionByHash(sha256(sessionToken));
    if (!session || session.endedAt !== null) return null;
    const now = this.clock.now();
    const idle = now.getTime() - Date.parse(session.lastSeenAt) >= SESSION_IDLE_TIMEOUT_MS;
    const old = now.getTime() - Date.parse(session.createdAt) >= SESSION_ABSOLUTE_TIMEOUT_MS;
    const staff = this.directory.get(session.staffId);
    if (idle || old || !staff || staff.status !== 'active') {
      await this.credentials.endSession(session.sessionId, now.toISOString());
      return null;
    }
    // The idle timer restarts; written at most once a minute (each write is an fsync).
    if (now.getTime() - Date.parse(session.lastSeenAt) >= TOUCH_INTERVAL_MS)
      await this.credentials.touchSession(session.sessionId, now.toISOString());
    return { staffId: staff.staffId, email: staff.email, role: staff.role, sessionId: session.sessionId };
  }

  /**
   * The session's CSRF token: an HMAC of its id under a key derived from the master key (a synchronizer token
   * that needs no storage, bound to the session: another session's token does not match).
   */
  csrfTokenOf(sessionId: string): string {
    return createHmac('sha256', this.csrfKey).update(`csrf:${sessionId}`).digest('base64url');
  }

  verifyCsrf(sessionId: string, token: string | undefined): boolean {
    if (typeof token !== 'string') return false;
    const expected = Buffer.from(this.csrfTokenOf(sessionId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async current(principal: StaffPrincipal): Promise<{ staff: StaffView; csrfToken: string }> {
    return {
      staff: this.view(this.existing(principal.staffId)),
      csrfToken: this.csrfTokenOf(principal.sessionId),
    };
  }

  async signOut(principal: StaffPrincipal): Promise<void> {
    const now = this.now();
    await this.credentials.endSession(principal.sessionId, now);
    await this.execute(principal.staffId, { type: 'SignOut', data: { sessionId: principal.sessionId, now } });
    await this.audit.record(principal, {
      action: 'session.signOut',
      environment: null,
      target: sessionTarget(principal.sessionId),
    });
  }

  /** Sign out everywhere: every session of the staff member ends, this one included. */
  async revokeAll(principal: StaffPrincipal): Promise<void> {
    const now = this.now();
    await this.credentials.endSessionsOf(principal.staffId, now);
    await this.execute(principal.staffId, { type: 'RevokeSessions', data: { now } });
    await this.audit.record(principal, {
      action: 'session.revokeAll',
      environment: null,
      target: { type: 'staff', id: principal.staffId },
    });
  }

  // ------------------------------------------------------------------------------------------------
  // Administration (audited by the caller)
  // ------------------------------------------------------------------------------------------------

  async changeRole(staffId: string, role: StaffRole, reason: string, by: StaffPrincipal): Promise<StaffView> {
    await this.directory.catchUp();
    this.existing(staffId);
    const staff = await this.execute(staffId, {
      type: 'ChangeRole',
      data: { role, reason, by: by.staffId, now: this.now() },
    });
    return this.view(staff);
  }

  /** Disables the account and ends every session of it. */
  async disable(staffId: string, reason: string, by: StaffPrincipal): Promise<StaffView> {
    await this.directory.catchUp();
    this.existing(staffId);
    const now = this.now();
    const staff = await this.execute(staffId, {
      type: 'DisableStaff',
      data: { reason, by: by.staffId, now },
    });
    await this.credentials.endSessionsOf(staffId, now);
    return this.view(staff);
  }

  async unlock(staffId: string, reason: string, by: StaffPrincipal): Promise<StaffView> {
    await this.directory.catchUp();
    this.existing(staffId);
    const staff = await this.execute(staffId, {
      type: 'UnlockStaff',
      data: { reason, by: by.staffId, now: this.now() },
    });
    return this.view(staff);
  }
}
