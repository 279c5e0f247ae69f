import { decideAuthorization, type AuthorizationFacts } from '../decision/authorization-decision.policy';
import { authorizationDecider } from '../authorization.decider';
import type { DistributorVerdict } from './distributor-answer';

// The distributor's verdict in the decision policy (real-time decisioning): it decides only what the
// platform's own checks confirmed, and the recorded event says who decided.

const USD = 1_000_000;
const facts = (
  distributor?: DistributorVerdict,
  overrides: Partial<AuthorizationFacts> = {},
): AuthorizationFacts => ({
  request: {
    merchant: { name: 'Cafe Lumen', city: 'Paris', country: 'FR', mcc: '5812' },
    merchantAmount: 4_250,
    merchantCurrency: 'USD',
    at: '2026-11-23T12:00:00.000Z',
  },
  card: { status: 'active', blocks: [], expMonth: 11, expYear: 2029 },
  userStatus: 'active',
  verification: { method: 'cvv2', ok: true },
  controls: { ok: true },
  availableBalance: 100 * USD,
  program: { fxRates: {}, fees: {} },
  ...(distributor ? { distributor } : {}),
  ...overrides,
});
const approve: DistributorVerdict = { decidedBy: 'distributor', decision: 'approve', detail: 'approved' };
const decline: DistributorVerdict = {
  decidedBy: 'distributor',
  decision: 'decline',
  detail: 'declined by the distributor',
};
const fallback = (decision: 'approve' | 'decline'): DistributorVerdict => ({
  decidedBy: 'distributorTimeout',
  decision,
  detail: 'distributor did not answer in time',
});

describe("the distributor's verdict in the decision", () => {
  it('without decisioning the platform decides alone (no decidedBy)', () => {
    const outcome = decideAuthorization(facts());
    expect(outcome.decision).toBe('confirmed');
    expect(outcome.decidedBy).toBeUndefined();
  });

  it('an approval confirms with the full hold', () => {
    expect(decideAuthorization(facts(approve))).toMatchObject({
      decision: 'confirmed',
      decidedBy: 'distributor',
      hold: { amount: 42_500_000 },
    });
  });

  it("the distributor's decline is failedControl, with nothing to hold", () => {
    expect(decideAuthorization(facts(decline))).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'failedControl',
      decidedBy: 'distributor',
      hold: null,
    });
  });

  it('a fallback decline is other; a fallback approval confirms', () => {
    expect(decideAuthorization(facts(fallback('decline')))).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'other',
      decidedBy: 'distributorTimeout',
    });
    expect(decideAuthorization(facts(fallback('approve')))).toMatchObject({
      decision: 'confirmed',
      decidedBy: 'distributorTimeout',
    });
  });

  it('a partial approval confirms the approved amount, priced again (fees included), and says what was asked', () => {
    const outcome = decideAuthorization(
      facts({ ...approve, amount: 10_000_000 }, { program: { fxRates: {}, fees: { auth: 100_000 } } }),
    );
    expect(outcome).toMatchObject({
      decision: 'confirmed',
      decidedBy: 'distributor',
      amount: 10_000_000,
      requestedAmount: 42_500_000,
      merchantAmount: '10.00',
      fee: { auth: 100_000 },
      hold: { amount: 10_100_000 },
    });
  });

  it('a partial approval is rounded down to the cent', () => {
    expect(decideAuthorization(facts({ ...approve, amount: 10_009_999 }))).toMatchObject({
      amount: 10_000_000,
      merchantAmount: '10.00',
    });
  });

  it.each([
    [
      'in another currency',
      { ...approve, amount: 10_000_000 },
      { merchantAmount: 4_000, merchantCurrency: 'EUR' },
    ],
    ['below one cent', { ...approve, amount: 9_999 }, {}],
  ])('a partial approval %s is declined failedControl', (_what, verdict, request) => {
    const base = facts(verdict as DistributorVerdict, {
      program: { fxRates: { EUR: '1.08' }, fees: {} },
    });
    expect(decideAuthorization({ ...base, request: { ...base.request, ...request } })).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'failedControl',
      decidedBy: 'distributor',
      hold: null,
    });
  });

  it('a partial approval is checked against the funds on its own total', () => {
    expect(
      decideAuthorization(facts({ ...approve, amount: 10_000_000 }, { availableBalance: 10_000_000 })),
    ).toMatchObject({
      decision: 'confirmed',
      hold: { amount: 10_000_000 },
    });
    expect(
      decideAuthorization(facts({ ...approve, amount: 10_000_000 }, { availableBalance: 9_999_999 })),
    ).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'insufficientFund',
    });
  });

  it('an approval does not cover missing funds: insufficientFund, decided by the platform', () => {
    const outcome = decideAuthorization(facts(approve, { availableBalance: 1 }));
    expect(outcome).toMatchObject({ decision: 'rejected', declineReasonCode: 'insufficientFund' });
    expect(outcome.decidedBy).toBeUndefined();
  });

  it("the platform's own decline comes first, whatever the distributor said", () => {
    expect(decideAuthorization(facts(approve, { userStatus: 'frozen' }))).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'notActive',
    });
  });

  it('the recorded event carries decidedBy, and the decline places no hold', () => {
    const parties = {
      authorizationId: 'aut-1',
      distributorId: 'dst-1',
      cardId: 'crd-1',
      userId: 'usr-1',
      walletId: 'wlt-1',
    };
    const [declined] = authorizationDecider.decide(
      { type: 'DecideAuthorization', data: { ...parties, networkKey: '0100:1', facts: facts(decline) } },
      { status: 'absent' },
    );
    expect(declined.data).toMatchObject({ decision: 'rejected', decidedBy: 'distributor', ledger: [] });
    const [approved] = authorizationDecider.decide(
      { type: 'DecideAuthorization', data: { ...parties, networkKey: '0100:1', facts: facts(approve) } },
      { status: 'absent' },
    );
    expect(approved.data).toMatchObject({
      decision: 'confirmed',
      decidedBy: 'distributor',
      ledger: [expect.objectContaining({ op: 'placeHold', amount: 42_500_000 })],
    });
  });
});
