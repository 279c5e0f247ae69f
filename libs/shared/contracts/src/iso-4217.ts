/**
 * ISO 4217 numeric -> alphabetic codes of the card currencies the platform prices (3DS `purchaseCurrency`,
 * ISO 8583 DE-049 are numeric). Hand-written (no maintained npm package carries only the table): a code not
 * listed has no alphabetic code here, and callers decide what that means.
 */
const ALPHA_OF_NUMERIC: Readonly<Record<string, string>> = {
  '036': 'AUD',
  '048': 'BHD',
  '124': 'CAD',
  '156': 'CNY',
  '203': 'CZK',
  '208': 'DKK',
  '344': 'HKD',
  '348': 'HUF',
  '356': 'INR',
  '392': 'JPY',
  '410': 'KRW',
  '414': 'KWD',
  '484': 'MXN',
  '554': 'NZD',
  '578': 'NOK',
  '643': 'RUB',
  '702': 'SGD',
  '710': 'ZAR',
  '752': 'SEK',
  '756': 'CHF',
  '784': 'AED',
  '826': 'GBP',
  '840': 'USD',
  '949': 'TRY',
  '978': 'EUR',
  '985': 'PLN',
  '986': 'BRL',
};

/** The alphabetic ISO 4217 code of a numeric one (`'978'` -> `'EUR'`), or null when not in the table. */
export const iso4217Alpha = (numeric: string): string | null => ALPHA_OF_NUMERIC[numeric] ?? null;
