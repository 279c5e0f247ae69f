// ---------------------------------------------------------------------------------------------------
// ISO 4217 minor units (the "exponent"): how many decimals a currency's amounts carry. The card network
// sends amounts as integers of these minor units (ISO 8583 fields 4 and 6 with the currency of field 49),
// so the exponent is what turns `123450` EUR into `"1234.50"`.
//
// Hand-written rather than read from `Intl.NumberFormat`: ICU's digits are CLDR's display digits, not ISO
// 4217's (Node 20 answers 0 for HUF and IDR, which ISO 4217 gives 2). The table lists the exceptions to 2
// decimals, from ISO 4217 list one (the SIX Financial Information table, 2024 edition); every other
// three-letter code has 2. Funds codes and precious metals (XAU, ...) are not card currencies.
// ---------------------------------------------------------------------------------------------------

const EXPONENT_EXCEPTIONS: Readonly<Record<string, number>> = {
  // No minor unit.
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  // Three decimals.
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  // Four decimals (units of account).
  CLF: 4,
  UYW: 4,
};

const CURRENCY_CODE = /^[A-Z]{3}$/;

export const isCurrencyCode = (value: unknown): value is string =>
  typeof value === 'string' && CURRENCY_CODE.test(value);

/** The ISO 4217 exponent of a three-letter code (2 unless listed above). */
export function currencyExponent(currency: string): number {
  if (!isCurrencyCode(currency)) throw new Error(`Not an ISO 4217 currency code: ${currency}`);
  return EXPONENT_EXCEPTIONS[currency] ?? 2;
}
