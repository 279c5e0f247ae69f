import { Decider, DomainError } from '@cip/shared/contracts';
import { STAFF_ROLES, type StaffRole, type StaffStatus } from '@cip/backoffice/contract';
import { staffEvents, type StaffEvent } from './staff.events';

/** Failed sign-ins in a row that lock an account, and for how long (docs/operator-api.md). */
export const LOCK_AFTER_FAILURES = 5;
export const LOCK_DURATION_MS = 15 * 60 * 1000;

// ---------------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------------

export type StaffCommand =
  | {
      type: 'InviteStaff';
      data: {
        staffId: string;
        email: string;
        name: string;
        role: StaffRole;
        invitedBy: string | null;
        now: string;
      };
    }
  | { type: 'AcceptInvitation'; data: { now: string } }
  | { type: 'ChangeRole'; data: { role: StaffRole; by: string; reason: string; now: string } }
  | { type: 'DisableStaff'; data: { by: string; reason: string; now: string } }
  | { type: 'UnlockStaff'; data: { by: string; reason: string; now: string } }
  /** Refused as `account_locked` while a lockout runs: a locked account's attempts are not even checked. */
  | { type: 'RecordSignInFailure'; data: { now: string } }
  | { type: 'SignIn'; data: { sessionId: string; now: string } }
  | { type: 'SignOut'; data: { sessionId: string; now: string } }
  | { type: 'RevokeSessions'; data: { now: string } };

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

export interface StaffRecord {
  staffId: string;
  email: string;
  name: string;
  role: StaffRole;
  status: StaffStatus;
  /** Failed sign-ins in a row since the last success, lockout or unlock. */
  failedAttempts: number;
  lockedUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

export type StaffState = { status: 'absent' } | StaffRecord;

/** What a lockout is kept in: a staff account, or an email no account has (`UnknownEmailState`). */
export interface Lockout {
  lockedUntil: string | null;
}

/** A lockout running at `now`. */
export const isLocked = (state: Lockout, now: string) =>
  state.lockedUntil !== null && Date.parse(state.lockedUntil) > Date.parse(now);

/** The account, refused as `not_found` when it does not exist. */
function existing(state: StaffState): StaffRecord {
  if (state.status === 'absent') throw new DomainError('not_found', 'Staff member was not found');
  return state;
}

function notDisabled(state: StaffRecord): StaffRecord {
  if (state.status === 'disabled')
    throw new DomainError('invalid_state_transition', 'The staff member is disabled');
  return state;
}

/** The one answer to a sign-in that cannot succeed, whatever the reason (no account enumeration). */
export const invalidCredentials = () =>
  new DomainError('invalid_credentials', 'The email, password or code is not valid');

/** Seconds until a lockout ends, for `retry-after` (at least 1). */
export const lockoutSeconds = (state: Lockout, now: string) =>
  Math.max(1, Math.ceil((Date.parse(state.lockedUntil ?? now) - Date.parse(now)) / 1000));

/** `423 account_locked`; the HTTP layer answers `retry-after` with `retryAfterSeconds`. */
export class AccountLockedError extends DomainError {
  constructor(
    readonly lockedUntil: string,
    readonly retryAfterSeconds: number,
  ) {
    super('account_locked', `Too many failed sign-ins: the account is locked until ${lockedUntil}`);
  }
}

export const accountLocked = (state: Lockout, now: string) =>
  new AccountLockedError(state.lockedUntil ?? now, lockoutSeconds(state, now));

function decide(command: StaffCommand, state: StaffState): StaffEvent[] {
  switch (command.type) {
    case 'InviteStaff': {
      if (state.status !== 'absent')
        throw new DomainError('invalid_state_transition', 'The staff member already exists');
      if (!STAFF_ROLES.includes(command.data.role))
        throw new DomainError('validation_error', `Unknown role ${command.data.role}`);
      const { now, ...data } = command.data;
      return [{ type: 'StaffInvited', data: { ...data, at: now } }];
    }
    case 'AcceptInvitation': {
      const staff = existing(state);
      if (staff.status !== 'invited')
        throw new DomainError('invalid_state_transition', 'The invitation was already accepted or withdrawn');
      return [{ type: 'StaffActivated', data: { staffId: staff.staffId, at: command.data.now } }];
    }
    case 'ChangeRole': {
      const staff = notDisabled(existing(state));
      if (!STAFF_ROLES.includes(command.data.role))
        throw new DomainError('validation_error', `Unknown role ${command.data.role}`);
      if (staff.role === command.data.role) return [];
      const { role, now, ...data } = command.data;
      return [
        {
          type: 'StaffRoleChanged',
          data: { staffId: staff.staffId, from: staff.role, to: role, ...data, at: now },
        },
      ];
    }
    case 'DisableStaff': {
      const staff = notDisabled(existing(state));
      const { now, ...data } = command.data;
      return [{ type: 'StaffDisabled', data: { staffId: staff.staffId, ...data, at: now } }];
    }
    case 'UnlockStaff': {
      const staff = notDisabled(existing(state));
      if (!isLocked(staff, command.data.now) && staff.failedAttempts === 0)
        throw new DomainError('invalid_state_transition', 'The staff member is not locked');
      const { now, ...data } = command.data;
      return [{ type: 'StaffUnlocked', data: { staffId: staff.staffId, ...data, at: now } }];
    }
    case 'RecordSignInFailure': {
      const staff = existing(state);
      const { now } = command.data;
      if (isLocked(staff, now)) throw accountLocked(staff, now);
      const attempts = staff.failedAttempts + 1;
      const events: StaffEvent[] = [
        { type: 'StaffSignInFailed', data: { staffId: staff.staffId, attempts, at: now } },
      ];
      if (attempts >= LOCK_AFTER_FAILURES) {
        const until = new Date(Date.parse(now) + LOCK_DURATION_MS).toISOString();
        events.push({ type: 'StaffLocked', data: { staffId: staff.staffId, until, at: now } });
      }
      return events;
    }
    case 'SignIn': {
      const staff = existing(state);
      const { now, sessionId } = command.data;
      if (isLocked(staff, now)) throw accountLocked(staff, now);
      if (staff.status !== 'active') throw invalidCredentials();
      return [{ type: 'StaffSignedIn', data: { staffId: staff.staffId, sessionId, at: now } }];
    }
    case 'SignOut': {
      const staff = existing(state);
      const { sessionId, now } = command.data;
      return [{ type: 'StaffSignedOut', data: { staffId: staff.staffId, sessionId, at: now } }];
    }
    case 'RevokeSessions': {
      const staff = existing(state);
      return [{ type: 'StaffSessionsRevoked', data: { staffId: staff.staffId, at: command.data.now } }];
    }
  }
}

function evolve(state: StaffState, event: StaffEvent): StaffState {
  if (event.type === 'StaffInvited') {
    const { invitedBy: _by, at, ...data } = event.data;
    return { ...data, status: 'invited', failedAttempts: 0, lockedUntil: null, createdAt: at, updatedAt: at };
  }
  if (state.status === 'absent') return state;
  const at = event.data.at;
  switch (event.type) {
    case 'StaffActivated':
      return { ...state, status: 'active', updatedAt: at };
    case 'StaffRoleChanged':
      return { ...state, role: event.data.to, updatedAt: at };
    case 'StaffDisabled':
      return { ...state, status: 'disabled', updatedAt: at };
    case 'StaffSignInFailed':
      return { ...state, failedAttempts: event.data.attempts, updatedAt: at };
    case 'StaffLocked':
      // The count starts again once the lockout ends.
      return { ...state, failedAttempts: 0, lockedUntil: event.data.until, updatedAt: at };
    case 'StaffUnlocked':
      return { ...state, failedAttempts: 0, lockedUntil: null, updatedAt: at };
    case 'StaffSignedIn':
      return { ...state, failedAttempts: 0, updatedAt: at };
    case 'StaffSignedOut':
    case 'StaffSessionsRevoked':
      return state;
  }
}

/** A staff account: invitation, activation, role, lockout after failed sign-ins, disabling, sessions. */
export const staffDecider: Decider<StaffCommand, StaffEvent, StaffState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'absent' }),
  events: staffEvents,
};
