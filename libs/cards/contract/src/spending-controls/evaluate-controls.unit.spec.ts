import {
  evaluateControls,
  PROGRAM_DEFAULT_SPENDING_CONTROLS,
  type SpendingControls,
  type SpendingLimitInterval,
  type SpendRecord,
} from './index';

// Minor units of USD (10^-6): usd(100) is 100 USD.
const usd = (units: number) => units * 1_000_000;

const controls = (overrides: Partial<SpendingControls> = {}): SpendingControls => ({
  ...PROGRAM_DEFAULT_SPENDING_CONTROLS,
  ...overrides,
});
const withLimit = (interval: SpendingLimitInterval, amount: number) =>
  controls({ limits: [{ interval, amount }] });
const payment = (amount: number, at: string, merchantMcc = '5411') => ({ amount, at, merchantMcc });
const spent = (amount: number, at: string): SpendRecord => ({ amount, at });

describe('evaluateControls: limits', () => {
  describe.each<[SpendingLimitInterval]>([
    ['per_authorization'],
    ['daily'],
    ['weekly'],
    ['monthly'],
    ['yearly'],
    ['all_time'],
  ])('a %s limit of 100 USD, 40 USD already spent today', (interval) => {
    // per_authorization ignores what was spent; the windows count it.
    const history = [spent(usd(40), '2026-03-11T08:00:00.000Z')];
    const room = interval === 'per_authorization' ? usd(100) : usd(60);
    const at = '2026-03-11T12:00:00.000Z';

    it('passes a payment exactly at the limit', () => {
      expect(evaluateControls(withLimit(interval, usd(100)), history, payment(room, at))).toEqual({
        ok: true,
      });
    });

    it('passes a payment one minor unit under the limit', () => {
      expect(evaluateControls(withLimit(interval, usd(100)), history, payment(room - 1, at))).toEqual({
        ok: true,
      });
    });

    it('declines a payment one minor unit over the limit, naming the interval', () => {
      expect(evaluateControls(withLimit(interval, usd(100)), history, payment(room + 1, at))).toEqual({
        ok: false,
        reason: 'failedControl',
        control: interval,
        detail: expect.stringContaining('limit of 100 USD'),
      });
    });
  });

  it('says how much was already spent and that the tightest of several limits decides', () => {
    const card = controls({
      limits: [
        { interval: 'monthly', amount: usd(1000) },
        { interval: 'daily', amount: usd(50) },
        { interval: 'per_authorization', amount: usd(500) },
      ],
    });
    const decision = evaluateControls(
      card,
      [spent(usd(30), '2026-03-11T01:00:00.000Z')],
      payment(usd(25), '2026-03-11T02:00:00.000Z'),
    );
    expect(decision).toEqual({
      ok: false,
      reason: 'failedControl',
      control: 'daily',
      detail: '25 USD with 30 USD already spent exceeds the daily limit of 50 USD',
    });
  });

  it('reports the narrowest failing interval first', () => {
    const card = controls({
      limits: [
        { interval: 'all_time', amount: usd(10) },
        { interval: 'per_authorization', amount: usd(10) },
      ],
    });
    const decision = evaluateControls(card, [], payment(usd(11), '2026-03-11T02:00:00.000Z'));
    expect(decision).toMatchObject({ ok: false, control: 'per_authorization' });
  });

  it('does not let refunds or reversed amounts (0 or less) raise the allowance', () => {
    const history = [
      spent(usd(100), '2026-03-11T01:00:00.000Z'),
      spent(-usd(100), '2026-03-11T02:00:00.000Z'),
      spent(0, '2026-03-11T03:00:00.000Z'),
    ];
    const decision = evaluateControls(
      withLimit('daily', usd(100)),
      history,
      payment(1, '2026-03-11T04:00:00.000Z'),
    );
    expect(decision).toMatchObject({ ok: false, control: 'daily' });
  });

  it('passes any amount without limits, and declines on an all-time total however long the history', () => {
    const history = Array.from({ length: 20_000 }, (_, i) =>
      spent(10 ** 15, new Date(i * 60_000).toISOString()),
    );
    expect(evaluateControls(controls(), history, payment(10 ** 15, '2026-01-01T00:00:00.000Z'))).toEqual({
      ok: true,
    });
    expect(
      evaluateControls(withLimit('all_time', 10 ** 15), history, payment(1, '2026-01-01T00:00:00.000Z')),
    ).toMatchObject({
      ok: false,
      control: 'all_time',
      detail: expect.stringContaining('or more already spent'),
    });
  });

  it('fails loudly on a timestamp it cannot read rather than counting it nowhere', () => {
    expect(() =>
      evaluateControls(
        withLimit('daily', usd(100)),
        [spent(usd(1), 'yesterday')],
        payment(1, '2026-03-11T04:00:00.000Z'),
      ),
    ).toThrow('spendHistory.at is not a timestamp');
  });
});

describe('evaluateControls: UTC windows', () => {
  // A limit of 100 USD with 100 USD spent at `spentAt`: a payment at `at` passes only if it is in another window.
  const sameWindow = (interval: SpendingLimitInterval, spentAt: string, at: string) =>
    !evaluateControls(withLimit(interval, usd(100)), [spent(usd(100), spentAt)], payment(1, at)).ok;

  it.each([
    // [interval, spent at, authorized at, same window]
    ['daily', '2026-03-11T00:00:00.000Z', '2026-03-11T23:59:59.999Z', true],
    ['daily', '2026-03-11T23:59:59.999Z', '2026-03-12T00:00:00.000Z', false],
    ['daily', '2026-03-10T23:59:59.999Z', '2026-03-11T00:00:00.000Z', false],
    // 2026-03-09 is a Monday, 2026-03-15 a Sunday.
    ['weekly', '2026-03-09T00:00:00.000Z', '2026-03-15T23:59:59.999Z', true],
    ['weekly', '2026-03-15T23:59:59.999Z', '2026-03-16T00:00:00.000Z', false],
    ['weekly', '2026-03-08T23:59:59.999Z', '2026-03-09T00:00:00.000Z', false],
    // The ISO week of Monday 2026-12-28 runs to Sunday 2027-01-03, across the new year.
    ['weekly', '2026-12-28T00:00:00.000Z', '2027-01-03T23:59:59.999Z', true],
    ['weekly', '2027-01-03T23:59:59.999Z', '2027-01-04T00:00:00.000Z', false],
    ['monthly', '2026-03-01T00:00:00.000Z', '2026-03-31T23:59:59.999Z', true],
    ['monthly', '2026-03-31T23:59:59.999Z', '2026-04-01T00:00:00.000Z', false],
    ['monthly', '2026-12-31T23:59:59.999Z', '2027-01-01T00:00:00.000Z', false],
    // Leap day: February 2028 has 29 days, and the 29th belongs to February.
    ['daily', '2028-02-29T00:00:00.000Z', '2028-02-29T23:59:59.999Z', true],
    ['daily', '2028-02-28T23:59:59.999Z', '2028-02-29T00:00:00.000Z', false],
    ['monthly', '2028-02-01T00:00:00.000Z', '2028-02-29T23:59:59.999Z', true],
    ['monthly', '2028-02-29T23:59:59.999Z', '2028-03-01T00:00:00.000Z', false],
    ['yearly', '2026-01-01T00:00:00.000Z', '2026-12-31T23:59:59.999Z', true],
    ['yearly', '2026-12-31T23:59:59.999Z', '2027-01-01T00:00:00.000Z', false],
    ['all_time', '2001-01-01T00:00:00.000Z', '2026-12-31T23:59:59.999Z', true],
  ] as const)('%s: %s and %s are in the same window: %s', (interval, first, second, same) => {
    expect(sameWindow(interval, first, second)).toBe(same);
    // The other way round too: a payment recorded after the one being decided (both in flight) still counts
    // in its window, and one at the first instant of the next window does not.
    expect(sameWindow(interval, second, first)).toBe(same);
  });

  it('reads offsets as the instant they name: 23:30 at -01:00 is the next UTC day', () => {
    expect(sameWindow('daily', '2026-03-12T00:10:00.000Z', '2026-03-11T23:30:00.000-01:00')).toBe(true);
    expect(sameWindow('daily', '2026-03-11T12:00:00.000Z', '2026-03-11T23:30:00.000-01:00')).toBe(false);
  });
});

describe('evaluateControls: merchant categories', () => {
  const at = '2026-03-11T12:00:00.000Z';

  it.each([
    ['5411', 'grocery stores'],
    ['5812', 'restaurants'],
    ['5814', 'fast food'],
    ['4511', 'airlines'],
    ['3000', 'an airline of the 3000-3299 range (United)'],
    ['3299', 'the last airline code of the range'],
    ['7011', 'hotels'],
    ['7512', 'car rental'],
    ['5999', 'miscellaneous retail (e-commerce)'],
    ['5311', 'department stores'],
    ['5941', 'sporting goods'],
    ['6011', 'ATM cash disbursements (not a restricted group)'],
  ])('the program defaults pass %s (%s)', (mcc) => {
    expect(evaluateControls(PROGRAM_DEFAULT_SPENDING_CONTROLS, [], payment(usd(10), at, mcc))).toEqual({
      ok: true,
    });
  });

  it.each([
    ['6051', 'quasi_cash'],
    ['6050', 'quasi_cash'],
    ['6540', 'quasi_cash'],
    ['4829', 'money_transfer'],
    ['6538', 'money_transfer'],
    ['7995', 'gambling'],
    ['7801', 'gambling'],
    ['9406', 'gambling'],
    ['5723', 'weapons'],
  ])('the program defaults decline %s, in the restricted group %s', (mcc, group) => {
    expect(evaluateControls(PROGRAM_DEFAULT_SPENDING_CONTROLS, [], payment(usd(10), at, mcc))).toEqual({
      ok: false,
      reason: 'failedControl',
      control: 'blockedMccGroups',
      detail: `MCC ${mcc} is in the blocked group ${group}`,
    });
  });

  it('keeps 6051 declined while quasi_cash is blocked, even with crypto unblocked', () => {
    const card = controls({ blockedMccGroups: ['quasi_cash', 'money_transfer', 'gambling', 'weapons'] });
    expect(evaluateControls(card, [], payment(usd(10), at, '6051'))).toMatchObject({ ok: false });
    const onlyCrypto = controls({ blockedMccGroups: ['crypto'] });
    expect(evaluateControls(onlyCrypto, [], payment(usd(10), at, '6051'))).toMatchObject({
      ok: false,
      detail: 'MCC 6051 is in the blocked group crypto',
    });
    expect(evaluateControls(controls({ blockedMccGroups: [] }), [], payment(usd(10), at, '6051'))).toEqual({
      ok: true,
    });
  });

  it('declines a blocked MCC and passes the others', () => {
    const card = controls({ blockedMccs: ['5813'] });
    expect(evaluateControls(card, [], payment(usd(10), at, '5813'))).toEqual({
      ok: false,
      reason: 'failedControl',
      control: 'blockedMccs',
      detail: 'MCC 5813 is blocked',
    });
    expect(evaluateControls(card, [], payment(usd(10), at, '5812'))).toEqual({ ok: true });
  });

  it('with an allow list, passes only its MCCs, and restricted groups still decline first', () => {
    const card = controls({ allowedMccs: ['5411', '5812'] });
    expect(evaluateControls(card, [], payment(usd(10), at, '5411'))).toEqual({ ok: true });
    expect(evaluateControls(card, [], payment(usd(10), at, '5999'))).toEqual({
      ok: false,
      reason: 'failedControl',
      control: 'allowedMccs',
      detail: 'MCC 5999 is not in the allowed MCCs',
    });
    expect(evaluateControls(card, [], payment(usd(10), at, '7995'))).toMatchObject({
      control: 'blockedMccGroups',
    });
  });

  it('reports the MCC restriction rather than a limit when both fail', () => {
    const card = controls({ limits: [{ interval: 'per_authorization', amount: usd(1) }] });
    expect(evaluateControls(card, [], payment(usd(10), at, '7995'))).toMatchObject({
      control: 'blockedMccGroups',
    });
  });
});
