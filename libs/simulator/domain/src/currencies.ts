// ISO 4217 numeric codes and exponents of the currencies the simulated acquirers accept (DE-049 is numeric).
// Hand-written: a short table of card currencies rather than a dependency for the whole list; a currency not
// listed is refused with a validation error, never guessed.
const CURRENCIES: Readonly<Record<string, { numeric: string; exponent: number }>> = {
  AED: { numeric: '784', exponent: 2 },
  AUD: { numeric: '036', exponent: 2 },
  BHD: { numeric: '048', exponent: 3 },
  BRL: { numeric: '986', exponent: 2 },
  CAD: { numeric: '124', exponent: 2 },
  CHF: { numeric: '756', exponent: 2 },
  CNY: { numeric: '156', exponent: 2 },
  CZK: { numeric: '203', exponent: 2 },
  DKK: { numeric: '208', exponent: 2 },
  EUR: { numeric: '978', exponent: 2 },
  GBP: { numeric: '826', exponent: 2 },
  HKD: { numeric: '344', exponent: 2 },
  HUF: { numeric: '348', exponent: 2 },
  INR: { numeric: '356', exponent: 2 },
  JPY: { numeric: '392', exponent: 0 },
  KRW: { numeric: '410', exponent: 0 },
  KWD: { numeric: '414', exponent: 3 },
  MXN: { numeric: '484', exponent: 2 },
  NOK: { numeric: '578', exponent: 2 },
  NZD: { numeric: '554', exponent: 2 },
  PLN: { numeric: '985', exponent: 2 },
  SEK: { numeric: '752', exponent: 2 },
  SGD: { numeric: '702', exponent: 2 },
  TRY: { numeric: '949', exponent: 2 },
  USD: { numeric: '840', exponent: 2 },
  ZAR: { numeric: '710', exponent: 2 },
};

export const SIMULATED_CURRENCIES = Object.keys(CURRENCIES);

export function currencyNumeric(currency: string): string | null {
  return CURRENCIES[currency]?.numeric ?? null;
}

/** The currency's ISO 4217 exponent (its minor unit's decimals), or null when it is not listed. */
export function currencyExponent(currency: string): number | null {
  return CURRENCIES[currency]?.exponent ?? null;
}

export function currencyAlpha(numeric: string): string | null {
  for (const [alpha, info] of Object.entries(CURRENCIES)) if (info.numeric === numeric) return alpha;
  return null;
}

/**
 * A decimal amount in currency units as an integer of its minor units (DE-004), or null when the currency is
 * unknown, the amount is not positive, has more decimals than the currency or does not fit n12.
 */
export function toMinorUnits(amount: number, currency: string): number | null {
  const info = CURRENCIES[currency];
  if (!info || !Number.isFinite(amount) || amount <= 0) return null;
  const scaled = amount * 10 ** info.exponent;
  const minor = Math.round(scaled);
  if (Math.abs(scaled - minor) > 1e-6 * Math.max(1, minor) || minor < 1 || minor > 999_999_999_999)
    return null;
  return minor;
}
