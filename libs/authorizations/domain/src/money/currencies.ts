import { iso4217MinorUnits, isIso4217Code } from '@cip/shared/contracts';

// The currencies of authorizations are ISO 4217 list one's, from the platform's one table
// (`@cip/shared/contracts` iso-4217.ts): the network's DE-049, the simulator and the API read the same.

/** Whether `value` is an alphabetic code of ISO 4217 list one. */
export const isCurrencyCode = (value: unknown): value is string => isIso4217Code(value);

/** The ISO 4217 minor units (exponent) of a currency of the table; throws for any other code. */
export function currencyExponent(currency: string): number {
  const exponent = iso4217MinorUnits(currency);
  if (exponent === null) throw new Error(`Not an ISO 4217 currency code: ${currency}`);
  return exponent;
}
