import { decimalTextOf, decimalToMinorUnits, iso4217Alpha, iso4217Currency } from '@cip/shared/contracts';

// The currencies the simulated acquirers accept: a choice of card currencies (the sandbox's program has a
// test rate for each, `DEFAULT_PROGRAM_AUTHORIZATION`), not a table: their numeric codes (DE-049) and minor
// units come from the platform's one ISO 4217 table (`@cip/shared/contracts`). A currency not listed is
// refused with a validation error, never guessed.
export const SIMULATED_CURRENCIES: readonly string[] = Object.freeze([
  'AED',
  'AUD',
  'BHD',
  'BRL',
  'CAD',
  'CHF',
  'CNY',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'HKD',
  'HUF',
  'INR',
  'JPY',
  'KRW',
  'KWD',
  'MXN',
  'NOK',
  'NZD',
  'PLN',
  'SEK',
  'SGD',
  'TRY',
  'USD',
  'ZAR',
]);

const ACCEPTED = new Set(SIMULATED_CURRENCIES);

/** The ISO 4217 numeric code of an accepted currency (`'EUR'` -> `'978'`), or null. */
export function currencyNumeric(currency: string): string | null {
  return ACCEPTED.has(currency) ? (iso4217Currency(currency)?.numeric ?? null) : null;
}

/** The currency's ISO 4217 exponent (its minor unit's decimals), or null when it is not accepted. */
export function currencyExponent(currency: string): number | null {
  return ACCEPTED.has(currency) ? (iso4217Currency(currency)?.minorUnits ?? null) : null;
}

/** The alphabetic code of an accepted currency's numeric code, or null. */
export function currencyAlpha(numeric: string): string | null {
  const alpha = iso4217Alpha(numeric);
  return alpha !== null && ACCEPTED.has(alpha) ? alpha : null;
}

/** DE-004 is n12: the most minor units an amount can carry on the network. */
const MAX_NETWORK_MINOR = 999_999_999_999n;

/**
 * A decimal amount in currency units as an integer of its minor units (DE-004), or null when the currency is
 * not accepted, the amount is not positive, has more decimals than the currency or does not fit n12. Exact:
 * from the amount's decimal text (the JSON literal when the caller has it), never `Math.round(x * 10^n)`.
 */
export function toMinorUnits(amount: number | string, currency: string): number | null {
  const exponent = currencyExponent(currency);
  if (exponent === null) return null;
  if (typeof amount === 'number' ? !Number.isFinite(amount) : typeof amount !== 'string') return null;
  const text = typeof amount === 'number' ? decimalTextOf(amount) : amount;
  const minor = decimalToMinorUnits(text, exponent);
  if (!minor.ok || minor.minor < 1n || minor.minor > MAX_NETWORK_MINOR) return null;
  return Number(minor.minor);
}
