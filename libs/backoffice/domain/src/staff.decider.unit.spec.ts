import { deciderSpec } from '@cip/shared/testing';
import { LOCK_AFTER_FAILURES, staffDecider } from './staff.decider';
import type { StaffEvent } from './staff.events';

const spec = deciderSpec(staffDecider);
const staffId = 'stf-0f8fad5b-d9cb-469f-a165-70867728950e';
const T0 = '2026-03-01T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

const invited: StaffEvent = {
  type: 'StaffInvited',
  data: { staffId, email: 'ada@example.com', name: 'Ada', role: 'support', invitedBy: null, at: T0 },
};
const activated: StaffEvent = { type: 'StaffActivated', data: { staffId, at: at(1) } };
const failed = (attempts: number): StaffEvent => ({
  type: 'StaffSignInFailed',
  data: { staffId, attempts, at: at(2) },
});
const fourFailures = [1, 2, 3, 4].map(failed);
const locked: StaffEvent = { type: 'StaffLocked', data: { staffId, until: at(17), at: at(2) } };
const disabled: StaffEvent = {
  type: 'StaffDisabled',
  data: { staffId, by: 'stf-admin', reason: 'LEFT-1', at: at(3) },
};

describe('staff decider', () => {
  describe('invitation', () => {
    it('invites a new staff member', () =>
      spec
        .given([])
        .when({
          type: 'InviteStaff',
          data: { staffId, email: 'ada@example.com', name: 'Ada', role: 'support', invitedBy: null, now: T0 },
        })
        .then([invited]));

    it('refuses to invite twice', () =>
      spec
        .given([invited])
        .when({
          type: 'InviteStaff',
          data: { staffId, email: 'ada@example.com', name: 'Ada', role: 'support', invitedBy: null, now: T0 },
        })
        .thenThrows('invalid_state_transition'));

    it('activates on acceptance', () =>
      spec
        .given([invited])
        .when({ type: 'AcceptInvitation', data: { now: at(1) } })
        .then([activated]));

    it('accepts an invitation once', () =>
      spec
        .given([invited, activated])
        .when({ type: 'AcceptInvitation', data: { now: at(2) } })
        .thenThrows('invalid_state_transition'));

    it('refuses an acceptance for nobody', () =>
      spec
        .given([])
        .when({ type: 'AcceptInvitation', data: { now: at(1) } })
        .thenThrows('not_found'));
  });

  describe('role', () => {
    it('changes the role with who and why', () =>
      spec
        .given([invited, activated])
        .when({ type: 'ChangeRole', data: { role: 'admin', by: 'stf-admin', reason: 'T-1', now: at(2) } })
        .then([
          {
            type: 'StaffRoleChanged',
            data: { staffId, from: 'support', to: 'admin', by: 'stf-admin', reason: 'T-1', at: at(2) },
          },
        ]));

    it('changes nothing for the same role', () =>
      spec
        .given([invited, activated])
        .when({ type: 'ChangeRole', data: { role: 'support', by: 'stf-admin', reason: 'T-1', now: at(2) } })
        .thenNothing());

    it("refuses a disabled member's role change", () =>
      spec
        .given([invited, activated, disabled])
        .when({ type: 'ChangeRole', data: { role: 'admin', by: 'stf-admin', reason: 'T-1', now: at(4) } })
        .thenThrows('invalid_state_transition'));
  });

  describe('disabling', () => {
    it('disables', () =>
      spec
        .given([invited, activated])
        .when({ type: 'DisableStaff', data: { by: 'stf-admin', reason: 'LEFT-1', now: at(3) } })
        .then([disabled]));

    it('disables once', () =>
      spec
        .given([invited, activated, disabled])
        .when({ type: 'DisableStaff', data: { by: 'stf-admin', reason: 'LEFT-1', now: at(4) } })
        .thenThrows('invalid_state_transition'));

    it('refuses a disabled member a sign-in as wrong credentials', () =>
      spec
        .given([invited, activated, disabled])
        .when({ type: 'SignIn', data: { sessionId: 'ses-1', now: at(4) } })
        .thenThrows('invalid_credentials'));
  });

  describe('lockout', () => {
    it('counts failed sign-ins', () =>
      spec
        .given([invited, activated, failed(1)])
        .when({ type: 'RecordSignInFailure', data: { now: at(2) } })
        .then([failed(2)]));

    it(`locks for 15 minutes at the ${LOCK_AFTER_FAILURES}th failure in a row`, () =>
      spec
        .given([invited, activated, ...fourFailures])
        .when({ type: 'RecordSignInFailure', data: { now: at(2) } })
        .then([failed(5), locked]));

    it('refuses a sign-in while locked, whatever the credentials', () =>
      spec
        .given([invited, activated, ...fourFailures, failed(5), locked])
        .when({ type: 'SignIn', data: { sessionId: 'ses-1', now: at(16) } })
        .thenThrows('account_locked'));

    it('lets a sign-in through once the lockout has run out, counting from zero again', () => {
      spec
        .given([invited, activated, ...fourFailures, failed(5), locked])
        .when({ type: 'SignIn', data: { sessionId: 'ses-1', now: at(17) } })
        .then([{ type: 'StaffSignedIn', data: { staffId, sessionId: 'ses-1', at: at(17) } }]);
      spec
        .given([invited, activated, ...fourFailures, failed(5), locked])
        .when({ type: 'RecordSignInFailure', data: { now: at(18) } })
        .then([{ type: 'StaffSignInFailed', data: { staffId, attempts: 1, at: at(18) } }]);
    });

    it('a success resets the count', () =>
      spec
        .given([
          invited,
          activated,
          ...fourFailures,
          { type: 'StaffSignedIn', data: { staffId, sessionId: 'ses-1', at: at(2) } },
        ])
        .when({ type: 'RecordSignInFailure', data: { now: at(3) } })
        .then([{ type: 'StaffSignInFailed', data: { staffId, attempts: 1, at: at(3) } }]));

    it('an admin unlocks', () =>
      spec
        .given([invited, activated, ...fourFailures, failed(5), locked])
        .when({ type: 'UnlockStaff', data: { by: 'stf-admin', reason: 'T-2', now: at(5) } })
        .then([{ type: 'StaffUnlocked', data: { staffId, by: 'stf-admin', reason: 'T-2', at: at(5) } }]));

    it('refuses to unlock an account that is not locked', () =>
      spec
        .given([invited, activated])
        .when({ type: 'UnlockStaff', data: { by: 'stf-admin', reason: 'T-2', now: at(5) } })
        .thenThrows('invalid_state_transition'));

    it('after an unlock, a sign-in goes through', () =>
      spec
        .given([
          invited,
          activated,
          ...fourFailures,
          failed(5),
          locked,
          { type: 'StaffUnlocked', data: { staffId, by: 'stf-admin', reason: 'T-2', at: at(5) } },
        ])
        .when({ type: 'SignIn', data: { sessionId: 'ses-1', now: at(6) } })
        .then([{ type: 'StaffSignedIn', data: { staffId, sessionId: 'ses-1', at: at(6) } }]));
  });

  describe('sessions', () => {
    it('refuses an invited-only account a sign-in as wrong credentials', () =>
      spec
        .given([invited])
        .when({ type: 'SignIn', data: { sessionId: 'ses-1', now: at(1) } })
        .thenThrows('invalid_credentials'));

    it('signs in and out', () => {
      spec
        .given([invited, activated])
        .when({ type: 'SignIn', data: { sessionId: 'ses-1', now: at(2) } })
        .then([{ type: 'StaffSignedIn', data: { staffId, sessionId: 'ses-1', at: at(2) } }]);
      spec
        .given([invited, activated])
        .when({ type: 'SignOut', data: { sessionId: 'ses-1', now: at(3) } })
        .then([{ type: 'StaffSignedOut', data: { staffId, sessionId: 'ses-1', at: at(3) } }]);
    });

    it('signs out everywhere', () =>
      spec
        .given([invited, activated])
        .when({ type: 'RevokeSessions', data: { now: at(3) } })
        .then([{ type: 'StaffSessionsRevoked', data: { staffId, at: at(3) } }]));
  });
});
