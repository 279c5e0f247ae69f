import { createCipheriv } from 'node:crypto';

/**
 * ISO 9564-1 format 0 PIN block: `0` + PIN length + PIN, padded with F to 16 hex digits, XOR `0000` + the 12
 * rightmost PAN digits excluding the check digit. Hand-written: eight lines of standard arithmetic.
 */
export function pinBlockFormat0(pin: string, pan: string): Buffer {
  if (!/^\d{4,12}$/.test(pin)) throw new RangeError('A PIN is 4 to 12 digits');
  const pinField = Buffer.from(`0${pin.length.toString(16)}${pin}`.padEnd(16, 'F'), 'hex');
  const panField = Buffer.from(`0000${pan.slice(-13, -1)}`, 'hex');
  for (let i = 0; i < 8; i++) pinField[i] ^= panField[i];
  return pinField;
}

/**
 * DE-052: the clear PIN block encrypted under the zone PIN key shared by network and issuer (TDES, one block,
 * ECB: ISO 9564's zone encryption). `zpkHex` is 32 or 48 hex digits (double or triple length).
 */
export function encryptPinBlock(clearBlock: Buffer, zpkHex: string): Buffer {
  const key = Buffer.from(zpkHex, 'hex');
  const tripleKey = key.length === 16 ? Buffer.concat([key, key.subarray(0, 8)]) : key;
  const cipher = createCipheriv('des-ede3-ecb', tripleKey, null).setAutoPadding(false);
  return Buffer.concat([cipher.update(clearBlock), cipher.final()]);
}
