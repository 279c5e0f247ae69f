import { DomainError } from '@cip/shared/contracts';
import { createCipheriv } from 'node:crypto';

/**
 * The magnetic-stripe-era card verification algorithms the card schemes publish and every HSM implements:
 * Visa CVV (also CVV2 and Mastercard CVC2) and Visa PVV. They are hand-written because no maintained npm
 * package implements them; the primitives are node:crypto's, and the unit tests pin them to published
 * vectors. Keys are double-length DES keys (16 bytes, key A then key B).
 */

/** 3DES (two-key, A|B|A) on one 8-byte block. */
function tripleDes(key: Buffer, block: Buffer): Buffer {
  const cipher = createCipheriv('des-ede3-ecb', Buffer.concat([key, key.subarray(0, 8)]), null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(block), cipher.final()]);
}

/** Single DES under `key` (8 bytes): 3DES with K|K|K, since OpenSSL 3 (Node 20) no longer offers des-ecb. */
const singleDes = (key: Buffer, block: Buffer): Buffer => tripleDes(Buffer.concat([key, key]), block);

function assertDoubleLengthKey(key: Buffer, name: string): void {
  if (key.length !== 16) throw new Error(`${name} must be a double-length DES key (16 bytes)`);
}

/**
 * Decimalisation as the Visa algorithms publish it: the decimal digits of the hex string from left to
 * right, then its hex letters A-F as 0-5 from left to right, and the first `count` of these.
 */
function decimalise(hex: string, count: number): string {
  const upper = hex.toUpperCase();
  const digits = [...upper].filter((c) => c <= '9');
  const letters = [...upper].filter((c) => c > '9').map((c) => String(c.charCodeAt(0) - 65));
  return [...digits, ...letters].slice(0, count).join('');
}

/**
 * Visa CVV: PAN, expiry (YYMM) and service code, padded with zeros to two 8-byte blocks; the first block
 * DES-encrypted under key A, XORed with the second, then 3DES-encrypted under A|B; decimalised to three
 * digits. CVV2 is the same with service code 000.
 */
export function visaCvv(input: {
  cvk: Buffer;
  pan: string;
  expiryYymm: string;
  serviceCode: string;
}): string {
  assertDoubleLengthKey(input.cvk, 'A CVK');
  if (!/^\d{12,19}$/.test(input.pan)) throw new Error('A PAN is 12 to 19 digits');
  if (!/^\d{4}$/.test(input.expiryYymm)) throw new Error('An expiry is 4 digits (YYMM)');
  if (!/^\d{3}$/.test(input.serviceCode)) throw new Error('A service code is 3 digits');
  const data = Buffer.from((input.pan + input.expiryYymm + input.serviceCode).padEnd(32, '0'), 'hex');
  const first = singleDes(input.cvk.subarray(0, 8), data.subarray(0, 8));
  for (let i = 0; i < 8; i++) first[i] ^= data[8 + i];
  return decimalise(tripleDes(input.cvk, first).toString('hex'), 3);
}

/** CVV2, printed on the card and keyed in card-not-present payments: the CVV with service code 000. */
export const visaCvv2 = (input: { cvk: Buffer; pan: string; expiryYymm: string }): string =>
  visaCvv({ ...input, serviceCode: '000' });

/** A PIN the platform accepts: four digits, what the Visa PVV covers in full. */
export function assertPin(pin: string): void {
  if (!/^\d{4}$/.test(pin)) {
    throw new DomainError('validation_error', 'A PIN is 4 digits', [
      { field: 'pin', message: 'must be 4 digits' },
    ]);
  }
}

/**
 * Visa PIN verification value: the transformed security parameter (the 11 rightmost PAN digits without
 * the check digit, the PVK index, the 4 PIN digits) 3DES-encrypted under the PVK pair, decimalised to four
 * digits. Only this value is kept; the PIN is checked by computing it again.
 */
export function visaPvv(input: { pvk: Buffer; pvki: number; pan: string; pin: string }): string {
  assertDoubleLengthKey(input.pvk, 'A PVK');
  if (!/^\d{13,19}$/.test(input.pan)) throw new Error('A PAN is 13 to 19 digits');
  if (!Number.isInteger(input.pvki) || input.pvki < 0 || input.pvki > 9) {
    throw new Error('A PVK index is one digit');
  }
  assertPin(input.pin);
  const tsp = input.pan.slice(-12, -1) + String(input.pvki) + input.pin;
  return decimalise(tripleDes(input.pvk, Buffer.from(tsp, 'hex')).toString('hex'), 4);
}
