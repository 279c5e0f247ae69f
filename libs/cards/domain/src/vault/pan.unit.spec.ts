import { cardExpiry, expiryYymm } from './card-expiry';
import { isLuhnValid, luhnCheckDigit } from './luhn';
import { generatePan, PAN_LENGTH } from './pan';

describe('Luhn', () => {
  // ISO/IEC 7812-1 Annex B's example (7992739871 -> 3) and the published test cards of the schemes.
  it.each([
    ['7992739871', 3],
    ['411111111111111', 1],
    ['555555555555444', 4],
    ['400000000000000', 2],
  ])('the check digit of %s is %s', (digits, check) => {
    expect(luhnCheckDigit(digits)).toBe(check);
  });

  it('accepts published test card numbers and refuses one with a changed digit', () => {
    expect(isLuhnValid('4111111111111111')).toBe(true);
    expect(isLuhnValid('378282246310005')).toBe(true);
    expect(isLuhnValid('4111111111111121')).toBe(false);
  });
});

describe('PAN generation', () => {
  it('keeps the BIN, fills the account digits from the random source and ends with the check digit', () => {
    const digits = [1, 2, 3, 4, 5, 6, 7];
    const pan = generatePan('40000099', () => digits.shift()!);
    expect(pan).toHaveLength(PAN_LENGTH);
    expect(pan.startsWith('400000991234567')).toBe(true);
    expect(isLuhnValid(pan)).toBe(true);
  });

  it.each(['12345', '123456789', '4000a0'])('refuses the BIN %s with a validation error', (bin) => {
    expect(() => generatePan(bin, () => 0)).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });
});

describe('card expiry', () => {
  it('is the month the lifetime ends in, across a year end', () => {
    const expiry = cardExpiry(new Date('2026-11-30T23:59:59Z'), 36);
    expect(expiry).toEqual({ expMonth: 11, expYear: 2029 });
    expect(cardExpiry(new Date('2026-11-01T00:00:00Z'), 2)).toEqual({ expMonth: 1, expYear: 2027 });
    expect(expiryYymm(expiry)).toBe('2911');
  });

  it.each([0, -1, 1.5, 121])('refuses a lifetime of %s months', (months) => {
    expect(() => cardExpiry(new Date(), months)).toThrow(
      expect.objectContaining({ code: 'validation_error' }),
    );
  });
});
