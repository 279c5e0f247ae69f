import { DomainError } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// USDC amounts. Inside the platform an amount is an integer of minor units (6 decimals); the API speaks
// JSON numbers of USDC. The conversion goes through the number's decimal text, never through float
// arithmetic.
//
// Safe integers rather than bigint: events, read models and the API are JSON, whose numbers every
// consumer reads as doubles, so a bigint would have to leave as a number (or a string, a breaking change of
// the API) anyway. What makes numbers safe is one bound, MAX_MINOR_UNITS, on every amount, balance, held
// total and available balance, checked where amounts enter (the API, the chain, every ledger command) and
// on every figure a posting produces (wallet.rules.ts in the domain). It is 10^15 minor units
// (1,000,000,000 USDC), below 2^53 for two reasons:
// - every figure reaches distributors as a JSON number of USDC with 6 decimals. A double holds any decimal
//   of at most 15 significant digits exactly through parsing and printing (DBL_DIG), hence every figure up
//   to 999,999,999.999999 USDC and 10^9 itself. Near 2^53 minor units it cannot: 9,007,199,254,740,991
//   minor units print as 9007199254.740992 USDC, so 2^53 itself would be a silent loss of precision.
// - a posting adds or subtracts two figures within +-10^15: the result lies within +-2 * 10^15 < 2^53, an
//   exact integer, so the bound check on it is exact too.
// ---------------------------------------------------------------------------------------------------

export const USDC_DECIMALS = 6;
export const USDC = 'USDC';
const MINOR_PER_UNIT = 10 ** USDC_DECIMALS;
/** The largest amount or ledger figure the platform holds, in minor units (1,000,000,000 USDC). */
export const MAX_MINOR_UNITS = 10 ** 15;
const MAX_UNITS = MAX_MINOR_UNITS / MINOR_PER_UNIT;
/** Fiat amounts of the API (card spending limits in USD) have at most 2 decimals (API-DECISIONS). */
export const FIAT_DECIMALS = 2;
const decimalsPattern = (decimals: number) => new RegExp(`^(\\d+)(?:\\.(\\d{1,${decimals}}))?$`);
const DECIMAL = {
  [USDC_DECIMALS]: decimalsPattern(USDC_DECIMALS),
  [FIAT_DECIMALS]: decimalsPattern(FIAT_DECIMALS),
};

/** `amount_too_large` (422): an amount, or the ledger figure it would produce, beyond MAX_MINOR_UNITS. */
export function amountTooLarge(message: string, field = 'amount'): DomainError {
  return new DomainError('amount_too_large', message, [
    { field, message: `must not exceed ${MAX_UNITS} ${USDC}` },
  ]);
}

/**
 * A positive USDC amount of the API as minor units. More than 6 decimals (`FIAT_DECIMALS` for a USD
 * amount: 1 USD is 1 USDC, so the minor units are the same), zero, negatives and non-numbers are refused
 * with a validation error naming `field` (400); amounts above MAX_MINOR_UNITS with `amount_too_large` (422).
 */
export function toMinorUnits(
  value: number,
  field = 'amount',
  decimals: typeof USDC_DECIMALS | typeof FIAT_DECIMALS = USDC_DECIMALS,
): number {
  const refuse = (message: string) => new DomainError('validation_error', message, [{ field, message }]);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw refuse(`${field} must be a number`);
  // Before the decimals: `String(1e21)` is an exponent form, and a huge amount is too large, not malformed.
  if (value > MAX_UNITS)
    throw amountTooLarge(`${field} exceeds the largest amount, ${MAX_UNITS} ${USDC}`, field);
  // `String(1e-7)` is "1e-7": exponent forms never match, so they are refused like any excess decimals.
  const match = DECIMAL[decimals].exec(String(value));
  if (!match) throw refuse(`${field} must be a positive amount with at most ${decimals} decimals`);
  const minor = Number(match[1]) * MINOR_PER_UNIT + Number((match[2] ?? '').padEnd(USDC_DECIMALS, '0'));
  if (minor <= 0) throw refuse(`${field} must be greater than 0`);
  return minor;
}

/**
 * Minor units as a JSON number of USDC (for display only: no arithmetic happens on the result). Exact for
 * every figure within MAX_MINOR_UNITS (see above).
 */
export function fromMinorUnits(minor: number): number {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const units = Math.floor(abs / MINOR_PER_UNIT);
  const fraction = String(abs % MINOR_PER_UNIT).padStart(USDC_DECIMALS, '0');
  return Number(`${sign}${units}.${fraction}`);
}

/**
 * A token amount of the chain (a uint256 as bigint minor units) as a number, compared as a bigint first:
 * zero is refused as a validation error, anything above MAX_MINOR_UNITS as `amount_too_large`.
 */
export function minorFromBigInt(amount: bigint): number {
  if (amount <= 0n) throw new DomainError('validation_error', `Amount ${amount} must be positive`);
  if (amount > BigInt(MAX_MINOR_UNITS))
    throw amountTooLarge(`Amount ${amount} exceeds the largest amount, ${MAX_MINOR_UNITS} minor units`);
  return Number(amount);
}
