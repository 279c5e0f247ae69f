import { acsOutcome, cardExpired, decimalAmount, maskedPanOf, type AcsFacts } from './acs-rules';

const NOW = new Date('2026-11-23T10:00:00.000Z');
const facts = (overrides: Partial<AcsFacts> = {}): AcsFacts => ({
  card: { status: 'active', blocks: [], expMonth: 11, expYear: 2029 },
  now: NOW,
  messageCategory: '01',
  deviceChannel: '01',
  amount: { minor: 3000n, exponent: 2 },
  decoupledRequested: true,
  knownMerchant: true,
  ...overrides,
});

describe('the ACS rules', () => {
  it('refuses an unknown card with N 08 (no card record)', () => {
    expect(acsOutcome(facts({ card: null }))).toEqual({ transStatus: 'N', transStatusReason: '08' });
  });

  it('refuses an expired card with N 05', () => {
    const card = { status: 'active', blocks: [], expMonth: 10, expYear: 2026 };
    expect(acsOutcome(facts({ card }))).toEqual({ transStatus: 'N', transStatusReason: '05' });
  });

  it.each([
    ['frozen', []],
    ['inactive', []],
    ['revoked', []],
    ['active', ['cvv2']],
  ])('rejects a %s card (blocks %j) with R 12', (status, blocks) => {
    const card = { status, blocks, expMonth: 11, expYear: 2029 };
    expect(acsOutcome(facts({ card }))).toEqual({ transStatus: 'R', transStatusReason: '12' });
  });

  it('does not authenticate 3RI requests: N 21', () => {
    expect(acsOutcome(facts({ deviceChannel: '03' }))).toEqual({ transStatus: 'N', transStatusReason: '21' });
  });

  it('authenticates frictionless a payment up to 30 units at a known merchant', () => {
    expect(acsOutcome(facts())).toEqual({ transStatus: 'Y' });
    expect(acsOutcome(facts({ amount: { minor: 30n, exponent: 0 } }))).toEqual({ transStatus: 'Y' });
    expect(acsOutcome(facts({ deviceChannel: '02' }))).toEqual({ transStatus: 'Y' });
  });

  it.each([
    ['above the limit', { amount: { minor: 3001n, exponent: 2 } }],
    ['at an unknown merchant', { knownMerchant: false }],
    ['when the requestor asks for a challenge', { challengeIndicator: '03' }],
    ['when a challenge is mandated', { challengeIndicator: '04' }],
    ['for a card verification', { messageCategory: '02' as const, amount: null }],
  ])('challenges out of band (D) %s', (_case, overrides) => {
    expect(acsOutcome(facts(overrides))).toEqual({ transStatus: 'D' });
  });

  it('challenges in the browser (C) when the requestor does not take decoupled authentication', () => {
    expect(
      acsOutcome(facts({ knownMerchant: false, decoupledRequested: false, deviceChannel: '02' })),
    ).toEqual({
      transStatus: 'C',
    });
  });

  it('refuses with N 23 an app challenge the requestor cannot take decoupled', () => {
    expect(acsOutcome(facts({ knownMerchant: false, decoupledRequested: false }))).toEqual({
      transStatus: 'N',
      transStatusReason: '23',
    });
  });

  it('counts a card good to the last day of its expiry month', () => {
    expect(cardExpired(11, 2026, new Date('2026-11-30T23:59:59.999Z'))).toBe(false);
    expect(cardExpired(11, 2026, new Date('2026-12-01T00:00:00.000Z'))).toBe(true);
    expect(cardExpired(12, 2026, new Date('2026-12-31T12:00:00.000Z'))).toBe(false);
  });

  it('writes amounts as decimal strings with the currency exponent, and masks the PAN', () => {
    expect(decimalAmount(4250n, 2)).toBe('42.50');
    expect(decimalAmount(5n, 2)).toBe('0.05');
    expect(decimalAmount(1500n, 0)).toBe('1500');
    expect(decimalAmount(1234567n, 3)).toBe('1234.567');
    expect(maskedPanOf('4242424242424242')).toBe('424242******4242');
  });
});
