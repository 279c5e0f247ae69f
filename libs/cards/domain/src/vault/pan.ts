import { DomainError } from '@cip/shared/contracts';
import { luhnCheckDigit } from './luhn';

/** Card numbers issued by the platform are 16 digits: BIN, account digits, Luhn check digit. */
export const PAN_LENGTH = 16;

/**
 * Issuer BINs (IINs) are 6 or 8 digits since ISO/IEC 7812-1:2017; 7 is accepted for programs that were
 * assigned a 7-digit range by their processor.
 */
export const BIN_PATTERN = /^\d{6,8}$/;

/**
 * The sandbox's BIN: under 400000, the prefix of the Visa test card numbers processors publish for their
 * test modes (4000 0000 0000 0002, ...), which no live network routes to an issuer.
 */
export const SANDBOX_TEST_BIN = '40000099';

export function assertBin(bin: string): void {
  if (!BIN_PATTERN.test(bin)) {
    throw new DomainError('validation_error', 'A BIN is 6 to 8 digits', [
      { field: 'bin', message: 'must be 6 to 8 digits' },
    ]);
  }
}

/**
 * A PAN in the BIN's range: random account digits drawn one at a time from `randomDigit` (the vault passes
 * `crypto.randomInt`, so the domain stays free of IO and tests can pass a fixed sequence), then the Luhn
 * check digit. Uniqueness is not this function's business: the vault store refuses a PAN it already holds.
 */
export function generatePan(bin: string, randomDigit: () => number): string {
  assertBin(bin);
  let account = '';
  for (let i = bin.length; i < PAN_LENGTH - 1; i++) account += String(randomDigit());
  const body = bin + account;
  return body + String(luhnCheckDigit(body));
}

/** How many PANs a BIN can give: what a "range exhausted" error reports. */
export const panRangeSize = (bin: string): number => 10 ** (PAN_LENGTH - 1 - bin.length);
