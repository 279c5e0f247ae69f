import { SANDBOX_TEST_FX_RATES } from '@cip/authorizations/contract';
import { iso4217Currency } from '@cip/shared/contracts';
import {
  currencyAlpha,
  currencyExponent,
  currencyNumeric,
  SIMULATED_CURRENCIES,
  toMinorUnits,
} from './currencies';

describe('the simulated acquirers currencies', () => {
  it.each(SIMULATED_CURRENCIES.map((code) => [code]))(
    '%s is an ISO 4217 currency, read both ways, with a sandbox test rate',
    (code) => {
      const iso = iso4217Currency(code);
      expect(iso).not.toBeNull();
      expect(currencyNumeric(code)).toBe(iso?.numeric);
      expect(currencyExponent(code)).toBe(iso?.minorUnits);
      expect(currencyAlpha(iso?.numeric as string)).toBe(code);
      if (code !== 'USD') expect(SANDBOX_TEST_FX_RATES[code]).toMatch(/^\d+(\.\d+)?$/);
    },
  );

  it('converts on the decimal text: more decimals than the currency are refused, never rounded', () => {
    expect(toMinorUnits(999.999, 'USD')).toBeNull();
    expect(toMinorUnits(100.001, 'USD')).toBeNull();
    expect(toMinorUnits(999.99, 'USD')).toBe(99999);
    expect(toMinorUnits('999.990', 'USD')).toBe(99999);
    expect(toMinorUnits(0.29, 'USD')).toBe(29);
    expect(toMinorUnits(1.5, 'JPY')).toBeNull();
    expect(toMinorUnits(1500, 'JPY')).toBe(1500);
    expect(toMinorUnits(12.345, 'KWD')).toBe(12345);
    expect(toMinorUnits(12.3456, 'BHD')).toBeNull();
    expect(toMinorUnits(1e2, 'JPY')).toBe(100);
  });

  it('refuses unknown currencies, zero, negatives and amounts beyond DE-004 (n12)', () => {
    expect(toMinorUnits(10, 'XYZ')).toBeNull();
    expect(toMinorUnits(10, 'IDR')).toBeNull(); // ISO 4217, but not accepted by the simulated acquirers
    expect(toMinorUnits(0, 'USD')).toBeNull();
    expect(toMinorUnits(-1, 'USD')).toBeNull();
    expect(toMinorUnits(Number.NaN, 'USD')).toBeNull();
    // What an optional body field may hold when the DTO let it through (`merchantAmount: null`).
    expect(toMinorUnits(null as unknown as number, 'USD')).toBeNull();
    expect(toMinorUnits(9_999_999_999.99, 'USD')).toBe(999_999_999_999);
    expect(toMinorUnits(10_000_000_000, 'USD')).toBeNull();
  });
});
