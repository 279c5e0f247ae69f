import { decideAuthorization, isPastExpiry, type AuthorizationFacts } from './authorization-decision.policy';

const USD = 1_000_000;
const facts = (
  overrides: Partial<AuthorizationFacts> = {},
  request: Partial<AuthorizationFacts['request']> = {},
) =>
  ({
    request: {
      merchant: { name: 'Cafe Lumen', city: 'Paris', country: 'FR', mcc: '5812' },
      merchantAmount: 4_250,
      merchantCurrency: 'USD',
      at: '2026-11-23T12:00:00.000Z',
      ...request,
    },
    card: { status: 'active', blocks: [], expMonth: 11, expYear: 2029 },
    userStatus: 'active',
    verification: { method: 'cvv2', ok: true },
    controls: { ok: true },
    availableBalance: 100 * USD,
    program: { fxRates: { EUR: '1.0856' }, fees: { auth: 100_000, fxRate: 20_000 } },
    ...overrides,
  }) satisfies AuthorizationFacts;

describe('confirming a payment', () => {
  it('confirms with a hold of the amount and its fees, and the spec fields', () => {
    expect(decideAuthorization(facts())).toEqual({
      decision: 'confirmed',
      amount: 42_500_000,
      merchantAmount: '42.50',
      merchantCurrency: 'USD',
      fee: { auth: 100_000 },
      feeTotal: 100_000,
      fxRate: null,
      hold: { amount: 42_600_000 },
    });
  });

  it('confirms when the balance covers the amount and fees exactly', () => {
    const outcome = decideAuthorization(facts({ availableBalance: 42_600_000 }));
    expect(outcome).toMatchObject({ decision: 'confirmed', hold: { amount: 42_600_000 } });
  });

  it('converts a foreign amount at the program rate and adds the fx fee', () => {
    const outcome = decideAuthorization(
      facts({ availableBalance: 200 * USD }, { merchantAmount: 10_000, merchantCurrency: 'EUR' }),
    );
    expect(outcome).toMatchObject({
      decision: 'confirmed',
      amount: 108_560_000,
      merchantAmount: '100.00',
      fee: { fx: 2_170_000, auth: 100_000 },
      hold: { amount: 110_830_000 },
    });
  });

  it('confirms a zero-amount check (account verification) without fees or a hold', () => {
    expect(decideAuthorization(facts({}, { merchantAmount: 0 }))).toMatchObject({
      decision: 'confirmed',
      amount: 0,
      fee: {},
      feeTotal: 0,
      hold: null,
    });
  });

  it('confirms without any PIN or CVV2 check when the request carried none', () => {
    expect(decideAuthorization(facts({ verification: null })).decision).toBe('confirmed');
  });
});

describe('declining, in the order of the issue', () => {
  it.each([
    [
      'an inactive card',
      { card: { status: 'inactive', blocks: [], expMonth: 11, expYear: 2029 } },
      /inactive/,
    ],
    ['a frozen card', { card: { status: 'frozen', blocks: [], expMonth: 11, expYear: 2029 } }, /frozen/],
    ['a revoked card', { card: { status: 'revoked', blocks: [], expMonth: 11, expYear: 2029 } }, /revoked/],
    [
      'a blocked card',
      { card: { status: 'active', blocks: ['pin_cvv_attempts'], expMonth: 11, expYear: 2029 } },
      /blocked \(pin_cvv_attempts\)/,
    ],
    ['an expired card', { card: { status: 'active', blocks: [], expMonth: 10, expYear: 2026 } }, /expired/],
    ['a frozen user', { userStatus: 'frozen' }, /user is frozen/],
    ['a user not verified yet', { userStatus: 'unverified' }, /user is unverified/],
  ] as [string, Partial<AuthorizationFacts>, RegExp][])(
    'declines %s as notActive',
    (_what, override, detail) => {
      const outcome = decideAuthorization(facts(override));
      expect(outcome).toMatchObject({ decision: 'rejected', declineReasonCode: 'notActive', hold: null });
      expect(outcome.detail).toMatch(detail);
    },
  );

  it('declines a wrong CVV2 or PIN as other', () => {
    const wrongCvv2 = decideAuthorization(facts({ verification: { method: 'cvv2', ok: false } }));
    expect(wrongCvv2).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'other',
      detail: 'wrong CVV2',
    });
    // Told apart from a currency the program cannot price: no declineDetail.
    expect(wrongCvv2.declineDetail).toBeUndefined();
    expect(decideAuthorization(facts({ verification: { method: 'pin', ok: false } })).detail).toBe(
      'wrong PIN',
    );
  });

  it('declines a 3-D Secure authentication value that did not verify as other, and decides a verified one as before', () => {
    expect(
      decideAuthorization(facts({ threeDs: { eci: '05', verified: false, reason: 'reused' } })),
    ).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'other',
      detail: '3-D Secure authentication value not verified: reused',
    });
    expect(decideAuthorization(facts({ threeDs: { eci: '05', verified: true } })).decision).toBe('confirmed');
    // An inactive card is declined for what it is, whatever the value.
    expect(
      decideAuthorization(
        facts({ card: { ...facts().card, status: 'frozen' }, threeDs: { eci: '05', verified: false } }),
      ).declineReasonCode,
    ).toBe('notActive');
  });

  it('declines a merchant currency the program has no rate for as other, still showing the original amount', () => {
    expect(decideAuthorization(facts({}, { merchantAmount: 5_000, merchantCurrency: 'GBP' }))).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'other',
      detail: 'the program has no fx rate for GBP',
      declineDetail: 'currency_not_supported',
      amount: 0,
      merchantAmount: '50.00',
      merchantCurrency: 'GBP',
    });
  });

  it('declines a spending control or MCC restriction as failedControl', () => {
    const controls = {
      ok: false,
      control: 'blockedMccGroups',
      detail: 'MCC 7995 is in the blocked group gambling',
    };
    expect(decideAuthorization(facts({ controls } as Partial<AuthorizationFacts>))).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'failedControl',
      detail: controls.detail,
    });
  });

  it('declines one minor unit short of the amount and fees as insufficientFund', () => {
    expect(decideAuthorization(facts({ availableBalance: 42_599_999 }))).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'insufficientFund',
      hold: null,
    });
  });

  it('declines a negative available balance as insufficientFund', () => {
    expect(decideAuthorization(facts({ availableBalance: -5 })).declineReasonCode).toBe('insufficientFund');
  });

  it('reports the first failing check: status before verification before controls before funds', () => {
    const everythingWrong = facts({
      userStatus: 'frozen',
      verification: { method: 'pin', ok: false },
      controls: { ok: false, control: 'daily', detail: 'over the daily limit' },
      availableBalance: 0,
    });
    expect(decideAuthorization(everythingWrong).declineReasonCode).toBe('notActive');
    expect(decideAuthorization({ ...everythingWrong, userStatus: 'active' }).declineReasonCode).toBe('other');
    expect(
      decideAuthorization({ ...everythingWrong, userStatus: 'active', verification: null }).declineReasonCode,
    ).toBe('failedControl');
    expect(
      decideAuthorization({
        ...everythingWrong,
        userStatus: 'active',
        verification: null,
        controls: { ok: true },
      }).declineReasonCode,
    ).toBe('insufficientFund');
  });
});

describe('card expiry at the end of the month, UTC', () => {
  const card = { expMonth: 11, expYear: 2026 };

  it('accepts the last millisecond of the expiry month and declines the first of the next', () => {
    expect(isPastExpiry(card, '2026-11-30T23:59:59.999Z')).toBe(false);
    expect(isPastExpiry(card, '2026-12-01T00:00:00.000Z')).toBe(true);
    const december = { expMonth: 12, expYear: 2026 };
    expect(isPastExpiry(december, '2026-12-31T23:59:59.999Z')).toBe(false);
    expect(isPastExpiry(december, '2027-01-01T00:00:00.000Z')).toBe(true);
  });

  it('declines a payment on the first instant after expiry as notActive', () => {
    const expiring = { status: 'active' as const, blocks: [], ...card };
    expect(decideAuthorization(facts({ card: expiring }, { at: '2026-11-30T23:59:59.999Z' })).decision).toBe(
      'confirmed',
    );
    expect(decideAuthorization(facts({ card: expiring }, { at: '2026-12-01T00:00:00.000Z' }))).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'notActive',
      detail: 'card expired at the end of 2026-11',
    });
  });
});

describe('advices: approved by the network without asking', () => {
  const broke = facts({
    card: { status: 'frozen', blocks: ['fraud_hold'], expMonth: 1, expYear: 2020 },
    userStatus: 'frozen',
    controls: { ok: false, control: 'per_authorization', detail: 'over the limit' },
    availableBalance: -10 * USD,
  });

  it('records a stand-in advice whatever the card, the controls and the balance, with a forced hold', () => {
    expect(
      decideAuthorization({ ...broke, request: { ...broke.request, advice: 'stand_in' } }),
    ).toMatchObject({
      decision: 'confirmed',
      hold: { amount: 42_600_000, force: true },
    });
  });

  it('records an offline advice the same way, even into a negative balance', () => {
    const outcome = decideAuthorization({ ...broke, request: { ...broke.request, advice: 'offline' } });
    expect(outcome).toMatchObject({ decision: 'confirmed', hold: { amount: 42_600_000, force: true } });
    expect(outcome.declineReasonCode).toBeUndefined();
  });

  it('refuses an advice it cannot price (no rate): recording it at a guessed amount would be wrong', () => {
    expect(() =>
      decideAuthorization(facts({}, { advice: 'stand_in', merchantCurrency: 'GBP', merchantAmount: 100 })),
    ).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });
});

it('refuses a decision time not in the spec format', () => {
  expect(() => decideAuthorization(facts({}, { at: '2026-11-23T12:00:00Z' }))).toThrow(
    expect.objectContaining({ code: 'validation_error' }),
  );
});
