import { STAND_IN_CODES, standInDecision, type StandInRequest } from './stand-in';

const rules = { limitMinor: 10_000 };
const now = new Date('2026-11-23T12:00:00Z');
const purchase: StandInRequest = { expiryYymm: '2911', processingCode: '000000', amountMinor: 2_500 };
const decide = (request: Partial<StandInRequest>, at = now) =>
  standInDecision({ ...purchase, ...request }, rules, at, 'STIP:timeout', '123456');

describe('stand-in decision (the network deciding for an issuer that did not answer)', () => {
  it('approves a purchase within the stand-in limit on an unexpired card, with the approval code', () => {
    expect(decide({})).toEqual({ responseCode: '00', approvalCode: '123456', reason: 'STIP:timeout' });
  });

  it('approves exactly the limit and declines one minor unit above it with 61', () => {
    expect(decide({ amountMinor: 10_000 }).responseCode).toBe(STAND_IN_CODES.approved);
    expect(decide({ amountMinor: 10_001 })).toEqual({ responseCode: '61', reason: 'STIP:timeout' });
  });

  it('treats a card as valid through the last day of its expiry month, and expired (54) the next day', () => {
    expect(decide({ expiryYymm: '2611' }, new Date('2026-11-30T23:59:59Z')).responseCode).toBe('00');
    expect(decide({ expiryYymm: '2611' }, new Date('2026-12-01T00:00:00Z')).responseCode).toBe('54');
  });

  it('declines a malformed expiry as expired', () => {
    expect(decide({ expiryYymm: '2913' }).responseCode).toBe('54');
    expect(decide({ expiryYymm: '' }).responseCode).toBe('54');
  });

  it('approves a refund of any amount (a credit) and declines other transaction types with 57', () => {
    expect(decide({ processingCode: '200000', amountMinor: 9_999_999 }).responseCode).toBe('00');
    expect(decide({ processingCode: '010000' }).responseCode).toBe('57');
  });

  it('carries the reason it stood in', () => {
    expect(standInDecision(purchase, rules, now, 'STIP:unavailable', '000001').reason).toBe(
      'STIP:unavailable',
    );
  });
});
