import { FIAT_DECIMALS, fromMinorUnits, MAX_MINOR_UNITS, minorFromBigInt, toMinorUnits } from './money';

describe('USDC amounts', () => {
  it.each([
    [100.5, 100_500_000],
    [0.000001, 1],
    [1, 1_000_000],
    [0.1, 100_000],
    [123456.123456, 123_456_123_456],
  ])('%s USDC is %s minor units, exactly', (amount, minor) => {
    expect(toMinorUnits(amount)).toBe(minor);
    expect(fromMinorUnits(minor)).toBe(amount);
  });

  it.each([0.0000001, 1.1234567, 0, -1, Number.NaN, 0.30000000000000004])('refuses %s', (amount) => {
    expect(() => toMinorUnits(amount)).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });

  it('takes amounts up to 1,000,000,000 USDC, each exact both ways', () => {
    expect(toMinorUnits(1_000_000_000)).toBe(MAX_MINOR_UNITS);
    expect(toMinorUnits(999_999_999.999999)).toBe(MAX_MINOR_UNITS - 1);
    expect(fromMinorUnits(MAX_MINOR_UNITS - 1)).toBe(999_999_999.999999);
    expect(fromMinorUnits(-MAX_MINOR_UNITS)).toBe(-1_000_000_000);
    // Every figure of the last million minor units below the bound prints back as its own decimal text.
    for (let minor = MAX_MINOR_UNITS - 1_000_000; minor <= MAX_MINOR_UNITS; minor++) {
      const text = `${Math.floor(minor / 1e6)}.${String(minor % 1e6).padStart(6, '0')}`;
      if (fromMinorUnits(minor) !== Number(text) || toMinorUnits(Number(text)) !== minor)
        throw new Error(text);
    }
  });

  // 2^53 - 1 and 2^53 + 1 minor units, as a JSON parser reads them (neither is a double exactly).
  const NEAR_2_POW_53 = [Number('9007199254.740991'), Number('9007199254.740993')];
  it.each([1_000_000_000.000001, ...NEAR_2_POW_53, 1e16, 1e21, 1e308])(
    'refuses %s as too large (422), not as malformed',
    (amount) => {
      expect(() => toMinorUnits(amount)).toThrow(
        expect.objectContaining({ code: 'amount_too_large', status: 422 }),
      );
    },
  );

  it('names the field in the error details', () => {
    expect(() => toMinorUnits(1.0000001, 'amount')).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ field: 'amount' })] }),
    );
  });

  it('renders negative balances', () => {
    expect(fromMinorUnits(-2_500_000)).toBe(-2.5);
  });

  it('takes chain amounts (uint256) only within the bound, compared before any conversion', () => {
    expect(minorFromBigInt(5_000_000n)).toBe(5_000_000);
    expect(minorFromBigInt(BigInt(MAX_MINOR_UNITS))).toBe(MAX_MINOR_UNITS);
    for (const tooLarge of [
      BigInt(MAX_MINOR_UNITS) + 1n,
      BigInt(Number.MAX_SAFE_INTEGER) + 1n,
      2n ** 256n - 1n,
    ])
      expect(() => minorFromBigInt(tooLarge)).toThrow(expect.objectContaining({ code: 'amount_too_large' }));
    expect(() => minorFromBigInt(0n)).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });
});

describe('USD amounts (fiat: at most 2 decimals)', () => {
  it('converts to the same minor units as USDC', () => {
    expect(toMinorUnits(250.5, 'limits.0.amount', FIAT_DECIMALS)).toBe(250_500_000);
    expect(toMinorUnits(0.29, 'limits.0.amount', FIAT_DECIMALS)).toBe(290_000);
  });

  it('refuses a third decimal, naming the field', () => {
    expect(() => toMinorUnits(10.005, 'limits.0.amount', FIAT_DECIMALS)).toThrow(
      expect.objectContaining({
        code: 'validation_error',
        details: [expect.objectContaining({ field: 'limits.0.amount' })],
      }),
    );
  });
});
