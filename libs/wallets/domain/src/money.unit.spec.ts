import { fromMinorUnits, minorFromBigInt, toMinorUnits } from './money';

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

  it.each([0.0000001, 1.1234567, 0, -1, Number.NaN, 1e16, 0.30000000000000004])('refuses %s', (amount) => {
    expect(() => toMinorUnits(amount)).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });

  it('names the field in the error details', () => {
    expect(() => toMinorUnits(1.0000001, 'amount')).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ field: 'amount' })] }),
    );
  });

  it('renders negative balances', () => {
    expect(fromMinorUnits(-2_500_000)).toBe(-2.5);
  });

  it('takes chain amounts only when they fit a safe integer', () => {
    expect(minorFromBigInt(5_000_000n)).toBe(5_000_000);
    expect(() => minorFromBigInt(2n ** 60n)).toThrow();
    expect(() => minorFromBigInt(0n)).toThrow();
  });
});
