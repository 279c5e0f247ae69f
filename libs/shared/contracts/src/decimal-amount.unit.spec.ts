import { decimalTextOf, decimalToMinorUnits, significantDecimals } from './decimal-amount';

describe('amounts judged and converted on their decimal text', () => {
  it.each([
    ['999.99', 2],
    ['999.990', 2],
    ['999.999', 3],
    ['100.10', 1],
    ['100', 0],
    ['100.000', 0],
    ['1e2', 0],
    ['1E+2', 0],
    ['1.5e-1', 2],
    ['0.000001', 6],
    ['1e-7', 7],
    ['0', 0],
    ['-12.5', 1],
  ])('%s has %i significant decimals', (text, decimals) => {
    expect(significantDecimals(text)).toBe(decimals);
  });

  it('is not fooled by the float product: 999.999 USD is refused, not 1000.00', () => {
    expect(Math.round(999.999 * 100)).toBe(100000); // the defect: what the float path computed
    expect(decimalToMinorUnits('999.999', 2)).toEqual({ ok: false, reason: 'excess_decimals' });
    expect(decimalToMinorUnits(decimalTextOf(999.999), 2)).toEqual({ ok: false, reason: 'excess_decimals' });
  });

  it.each([
    ['999.99', 2, 99999n],
    ['999.990', 2, 99999n],
    ['0.29', 2, 29n], // 0.29 * 100 is 28.999999999999996
    ['1.005', 3, 1005n],
    ['1234.5', 2, 123450n],
    ['1e2', 0, 100n],
    ['1.5e-1', 2, 15n],
    ['100.000001', 6, 100000001n],
    ['4.35', 2, 435n], // 4.35 * 100 is 434.99999999999994
    ['-12.5', 2, -1250n],
    ['0', 2, 0n],
  ])('%s with %i decimals is exactly %s minor units', (text, decimals, minor) => {
    expect(decimalToMinorUnits(text, decimals)).toEqual({ ok: true, minor });
  });

  it('refuses what is not a JSON number, and numbers beyond any amount without building them', () => {
    for (const text of ['', 'abc', '1.2.3', '0x10', 'NaN', 'Infinity', '1,5'])
      expect(decimalToMinorUnits(text, 2)).toEqual({ ok: false, reason: 'not_a_number' });
    expect(decimalToMinorUnits('1e999999999', 2)).toEqual({ ok: false, reason: 'too_large' });
    expect(decimalToMinorUnits('1e-999999999', 2)).toEqual({ ok: false, reason: 'excess_decimals' });
    expect(significantDecimals('nope')).toBeNull();
    expect(decimalToMinorUnits(null as unknown as string, 2)).toEqual({ ok: false, reason: 'not_a_number' });
  });

  it('reads a double by its shortest text, exponent forms included', () => {
    expect(decimalTextOf(0.1)).toBe('0.1');
    expect(decimalToMinorUnits(decimalTextOf(1e-7), 6)).toEqual({ ok: false, reason: 'excess_decimals' });
    expect(decimalToMinorUnits(decimalTextOf(1e21), 2)).toEqual({ ok: true, minor: 10n ** 23n });
  });
});
