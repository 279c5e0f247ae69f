import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';
import type { AuditEntry, StaffRole } from '@cip/backoffice/contract';

// ---------------------------------------------------------------------------------------------------
// Events of a staff member's stream (`stf-<uuid>`) and of the audit trail (`aud-<uuid>`), in the control
// scope. Credentials (password hashes, TOTP secrets, session ids) are never in them: the staff credential
// store keeps those; the events record that they changed.
// ---------------------------------------------------------------------------------------------------

export type StaffInvited = DomainEvent<
  'StaffInvited',
  { staffId: string; email: string; name: string; role: StaffRole; invitedBy: string | null; at: string }
>;

/** The invitation was accepted: a password and a second factor were set (in the credential store). */
export type StaffActivated = DomainEvent<'StaffActivated', { staffId: string; at: string }>;

export type StaffRoleChanged = DomainEvent<
  'StaffRoleChanged',
  { staffId: string; from: StaffRole; to: StaffRole; by: string; reason: string; at: string }
>;

export type StaffDisabled = DomainEvent<
  'StaffDisabled',
  { staffId: string; by: string; reason: string; at: string }
>;

/** A failed sign-in: `attempts` in a row since the last success, lockout or unlock. */
export type StaffSignInFailed = DomainEvent<
  'StaffSignInFailed',
  { staffId: string; attempts: number; at: string }
>;

export type StaffLocked = DomainEvent<'StaffLocked', { staffId: string; until: string; at: string }>;

export type StaffUnlocked = DomainEvent<
  'StaffUnlocked',
  { staffId: string; by: string; reason: string; at: string }
>;

/** `sessionId` is the session's public reference (`ses-<uuid>`), never the cookie's value. */
export type StaffSignedIn = DomainEvent<'StaffSignedIn', { staffId: string; sessionId: string; at: string }>;

export type StaffSignedOut = DomainEvent<
  'StaffSignedOut',
  { staffId: string; sessionId: string; at: string }
>;

/** Every session of the staff member ended (sign out everywhere). */
export type StaffSessionsRevoked = DomainEvent<'StaffSessionsRevoked', { staffId: string; at: string }>;

export type StaffEvent =
  | StaffInvited
  | StaffActivated
  | StaffRoleChanged
  | StaffDisabled
  | StaffSignInFailed
  | StaffLocked
  | StaffUnlocked
  | StaffSignedIn
  | StaffSignedOut
  | StaffSessionsRevoked;

/** How staff streams are read (no upcaster yet). */
export const staffEvents = domainEventReader<StaffEvent>();

/** One staff action of the audit trail: the whole entry (docs/operator-api.md, "Audit trail"). */
export type StaffActionRecorded = DomainEvent<'StaffActionRecorded', AuditEntry & Record<string, unknown>>;

export const auditEvents = domainEventReader<StaffActionRecorded>();

export const STAFF_STREAM_PREFIX = 'stf-';

// ---------------------------------------------------------------------------------------------------
// Events of an email no staff account has (`stfunknown-<sha256 of the email>`): failed sign-ins are
// counted and locked out exactly like an account's, so the answers tell no account from none.
// ---------------------------------------------------------------------------------------------------

/** A failed sign-in with an email no account has: `attempts` in a row since the last lockout. */
export type UnknownEmailSignInFailed = DomainEvent<
  'UnknownEmailSignInFailed',
  { attempts: number; at: string }
>;

export type UnknownEmailLocked = DomainEvent<'UnknownEmailLocked', { until: string; at: string }>;

export type UnknownEmailEvent = UnknownEmailSignInFailed | UnknownEmailLocked;

/** How unknown-email streams are read (no upcaster yet). */
export const unknownEmailEvents = domainEventReader<UnknownEmailEvent>();

export const UNKNOWN_EMAIL_STREAM_PREFIX = 'stfunknown-';
export const AUDIT_STREAM_PREFIX = 'aud-';
