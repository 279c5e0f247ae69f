import {
  ISO_4217_CURRENCIES,
  iso4217Alpha,
  iso4217Currency,
  iso4217MinorUnits,
  iso4217Numeric,
  isIso4217Code,
} from './iso-4217';

describe('the ISO 4217 table (list one)', () => {
  it('carries every active currency once, by alphabetic and by numeric code', () => {
    // List one (2024-06-25) has 179 entries with a code; 13 have no minor units (metals, bond units, XDR,
    // XSU, XUA, XTS, XXX) and are left out.
    expect(ISO_4217_CURRENCIES).toHaveLength(166);
    const codes = ISO_4217_CURRENCIES.map((currency) => currency.code);
    const numerics = ISO_4217_CURRENCIES.map((currency) => currency.numeric);
    expect(new Set(codes).size).toBe(codes.length);
    expect(new Set(numerics).size).toBe(numerics.length);
    for (const { code, numeric, minorUnits } of ISO_4217_CURRENCIES) {
      expect(code).toMatch(/^[A-Z]{3}$/);
      expect(numeric).toMatch(/^\d{3}$/);
      expect([0, 2, 3, 4]).toContain(minorUnits);
    }
  });

  it.each([
    // The four the old tables disagreed on (recorded as "784" with the amount in minor units).
    ['AED', '784', 2],
    ['BHD', '048', 3],
    ['CZK', '203', 2],
    ['KWD', '414', 3],
    ['USD', '840', 2],
    ['EUR', '978', 2],
    ['JPY', '392', 0],
    ['KRW', '410', 0],
    // ICU's display digits say 0 for these; ISO 4217 says 2.
    ['HUF', '348', 2],
    ['IDR', '360', 2],
    ['CLF', '990', 4],
    ['TND', '788', 3],
  ])('%s is numeric %s with %i minor units, both ways', (code, numeric, minorUnits) => {
    expect(iso4217Currency(code)).toMatchObject({ code, numeric, minorUnits });
    expect(iso4217Numeric(code)).toBe(numeric);
    expect(iso4217Alpha(numeric)).toBe(code);
    expect(iso4217MinorUnits(code)).toBe(minorUnits);
    expect(isIso4217Code(code)).toBe(true);
  });

  it('knows no withdrawn, made-up or non-currency code', () => {
    for (const code of ['DEM', 'EUX', 'USDC', 'XAU', 'XXX', 'XTS', 'usd', '', 'ZWL', 'HRK']) {
      expect(isIso4217Code(code)).toBe(false);
      expect(iso4217Currency(code)).toBeNull();
    }
    expect(isIso4217Code(840)).toBe(false);
    expect(iso4217Alpha('000')).toBeNull();
    expect(iso4217Alpha('EUR')).toBeNull();
  });
});
