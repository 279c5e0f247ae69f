import type { Decider } from '@cip/shared/contracts';
import {
  accountLocked,
  isLocked,
  LOCK_AFTER_FAILURES,
  LOCK_DURATION_MS,
  type Lockout,
} from './staff.decider';
import { unknownEmailEvents, type UnknownEmailEvent } from './staff.events';

// ---------------------------------------------------------------------------------------------------
// An email no staff account has, as sign-in sees it: its failed sign-ins and lockout, with the rules of an
// account's (`RecordSignInFailure` of the staff decider), so that a sign-in answers the same whether the
// account exists or not (docs/operator-api.md, "Staff, roles and sign-in").
// ---------------------------------------------------------------------------------------------------

/** Refused as `account_locked` while a lockout runs, like an account's. */
export type UnknownEmailCommand = { type: 'RecordSignInFailure'; data: { now: string } };

export interface UnknownEmailState extends Lockout {
  status: 'unknown';
  /** Failed sign-ins in a row since the last lockout. */
  failedAttempts: number;
}

function decide(command: UnknownEmailCommand, state: UnknownEmailState): UnknownEmailEvent[] {
  switch (command.type) {
    case 'RecordSignInFailure': {
      const { now } = command.data;
      if (isLocked(state, now)) throw accountLocked(state, now);
      const attempts = state.failedAttempts + 1;
      const events: UnknownEmailEvent[] = [{ type: 'UnknownEmailSignInFailed', data: { attempts, at: now } }];
      if (attempts >= LOCK_AFTER_FAILURES) {
        const until = new Date(Date.parse(now) + LOCK_DURATION_MS).toISOString();
        events.push({ type: 'UnknownEmailLocked', data: { until, at: now } });
      }
      return events;
    }
    default: {
      const unknown: never = command.type;
      throw new Error(`Unknown command ${String(unknown)}`);
    }
  }
}

function evolve(state: UnknownEmailState, event: UnknownEmailEvent): UnknownEmailState {
  switch (event.type) {
    case 'UnknownEmailSignInFailed':
      return { ...state, failedAttempts: event.data.attempts };
    case 'UnknownEmailLocked':
      // The count starts again once the lockout ends.
      return { ...state, failedAttempts: 0, lockedUntil: event.data.until };
  }
}

export const unknownEmailDecider: Decider<UnknownEmailCommand, UnknownEmailEvent, UnknownEmailState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'unknown', failedAttempts: 0, lockedUntil: null }),
  events: unknownEmailEvents,
};
