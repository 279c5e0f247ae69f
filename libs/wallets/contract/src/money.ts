import { DomainError } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// USDC amounts. Inside the platform an amount is an integer of minor units (6 decimals) held in a safe
// JavaScript integer (up to about 9 billion USDC); the API speaks JSON numbers of USDC. The conversion
// goes through the number's decimal text, never through float arithmetic.
// ---------------------------------------------------------------------------------------------------

export const USDC_DECIMALS = 6;
export const USDC = 'USDC';
const MINOR_PER_UNIT = 10 ** USDC_DECIMALS;
const DECIMAL = new RegExp(`^(\\d+)(?:\\.(\\d{1,${USDC_DECIMALS}}))?$`);

/**
 * A positive USDC amount of the API as minor units. More than 6 decimals, zero, negatives and values too
 * large to hold exactly are refused with a validation error naming `field`.
 */
export function toMinorUnits(value: number, field = 'amount'): number {
  const refuse = (message: string) => new DomainError('validation_error', message, [{ field, message }]);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw refuse(`${field} must be a number`);
  // `String(1e-7)` is "1e-7": exponent forms never match, so they are refused like any excess decimals.
  const match = DECIMAL.exec(String(value));
  if (!match) throw refuse(`${field} must be a positive amount with at most ${USDC_DECIMALS} decimals`);
  const minor = Number(match[1]) * MINOR_PER_UNIT + Number((match[2] ?? '').padEnd(USDC_DECIMALS, '0'));
  if (!Number.isSafeInteger(minor)) throw refuse(`${field} is too large`);
  if (minor <= 0) throw refuse(`${field} must be greater than 0`);
  return minor;
}

/** Minor units as a JSON number of USDC (for display only: no arithmetic happens on the result). */
export function fromMinorUnits(minor: number): number {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const units = Math.floor(abs / MINOR_PER_UNIT);
  const fraction = String(abs % MINOR_PER_UNIT).padStart(USDC_DECIMALS, '0');
  return Number(`${sign}${units}.${fraction}`);
}

/** A token amount of the chain (bigint minor units) as a safe integer, refusing what cannot be held exactly. */
export function minorFromBigInt(amount: bigint): number {
  if (amount <= 0n || amount > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new DomainError('validation_error', `Amount ${amount} is outside the supported range`);
  }
  return Number(amount);
}
