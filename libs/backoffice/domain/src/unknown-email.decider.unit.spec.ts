import { deciderSpec } from '@cip/shared/testing';
import type { UnknownEmailEvent } from './staff.events';
import { unknownEmailDecider } from './unknown-email.decider';

const spec = deciderSpec(unknownEmailDecider);
const T0 = '2026-03-01T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const failed = (attempts: number): UnknownEmailEvent => ({
  type: 'UnknownEmailSignInFailed',
  data: { attempts, at: at(1) },
});
const locked: UnknownEmailEvent = { type: 'UnknownEmailLocked', data: { until: at(16), at: at(1) } };

describe('unknown email decider: failed sign-ins of an email no account has, counted like an account', () => {
  it('counts a failure', () =>
    spec
      .given([failed(1)])
      .when({ type: 'RecordSignInFailure', data: { now: at(1) } })
      .then([failed(2)]));

  it('locks for 15 minutes at the fifth failure in a row', () =>
    spec
      .given([1, 2, 3, 4].map(failed))
      .when({ type: 'RecordSignInFailure', data: { now: at(1) } })
      .then([failed(5), locked]));

  it('refuses to count while locked (account_locked)', () =>
    spec
      .given([1, 2, 3, 4, 5].map(failed).concat(locked))
      .when({ type: 'RecordSignInFailure', data: { now: at(10) } })
      .thenThrows('account_locked'));

  it('counts from zero again once the lockout ended', () =>
    spec
      .given([1, 2, 3, 4, 5].map(failed).concat(locked))
      .when({ type: 'RecordSignInFailure', data: { now: at(17) } })
      .then([{ type: 'UnknownEmailSignInFailed', data: { attempts: 1, at: at(17) } }]));
});
