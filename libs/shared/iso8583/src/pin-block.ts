import { createCipheriv, createDecipheriv } from 'node:crypto';

// ---------------------------------------------------------------------------------------------------
// DE-052: the ISO 9564-1 format 0 PIN block, encrypted under the zone PIN key (ZPK) shared by the card
// network and the issuer (TDES, one block, ECB: ISO 9564's zone encryption). Hand-written: a few lines of
// standard arithmetic over node:crypto's des-ede3-ecb; no maintained npm package does only this.
// ---------------------------------------------------------------------------------------------------

/**
 * The zone PIN key of the sandbox (double-length TDES, hex), shared by the simulator and the issuer when
 * CARD_NETWORK_ZPK is unset. Public on purpose: sandbox PINs are test data.
 */
export const SANDBOX_ZPK = '0123456789ABCDEFFEDCBA9876543210';

/** A ZPK as CARD_NETWORK_ZPK holds it: 32 or 48 hex digits (double or triple length TDES). */
export const ZPK_HEX = /^([0-9A-Fa-f]{32}|[0-9A-Fa-f]{48})$/;

/** `0000` + the 12 rightmost PAN digits excluding the check digit. */
const panField = (pan: string): Buffer => Buffer.from(`0000${pan.slice(-13, -1).padStart(12, '0')}`, 'hex');

/** The format 0 clear PIN block of `pin` for `pan`: `0` + length + PIN, F-padded, XOR the PAN field. */
export function pinBlockFormat0(pin: string, pan: string): Buffer {
  if (!/^\d{4,12}$/.test(pin)) throw new RangeError('A PIN is 4 to 12 digits');
  const pinField = Buffer.from(`0${pin.length.toString(16)}${pin}`.padEnd(16, 'F'), 'hex');
  const pans = panField(pan);
  return Buffer.from(pinField.map((byte, i) => byte ^ pans[i]));
}

/** The PIN of a format 0 clear PIN block for `pan`; null when the block is malformed (or for another PAN). */
export function pinOfBlock(clearBlock: Buffer, pan: string): string | null {
  if (clearBlock.length !== 8) return null;
  const pans = panField(pan);
  const hex = Buffer.from(clearBlock.map((byte, i) => byte ^ pans[i]))
    .toString('hex')
    .toUpperCase();
  const length = Number.parseInt(hex[1], 16);
  if (hex[0] !== '0' || length < 4 || length > 12) return null;
  const pin = hex.slice(2, 2 + length);
  return /^\d+$/.test(pin) && /^F+$/.test(hex.slice(2 + length)) ? pin : null;
}

/** The 24-byte des-ede3 key of a double (K1K2, expanded K1K2K1) or triple length ZPK. */
function tdesKey(zpkHex: string): Buffer {
  if (!ZPK_HEX.test(zpkHex)) throw new RangeError('A ZPK is 32 or 48 hex digits');
  const key = Buffer.from(zpkHex, 'hex');
  return key.length === 16 ? Buffer.concat([key, key.subarray(0, 8)]) : key;
}

/** The network's side: the clear block encrypted under the ZPK (8 bytes in, 8 out). */
export function encryptPinBlock(clearBlock: Buffer, zpkHex: string): Buffer {
  const cipher = createCipheriv('des-ede3-ecb', tdesKey(zpkHex), null).setAutoPadding(false);
  return Buffer.concat([cipher.update(clearBlock), cipher.final()]);
}

/** The issuer's side: DE-052 decrypted under the ZPK; null when it is not one 8-byte block. */
export function decryptPinBlock(encryptedBlock: Buffer, zpkHex: string): Buffer | null {
  if (encryptedBlock.length !== 8) return null;
  const decipher = createDecipheriv('des-ede3-ecb', tdesKey(zpkHex), null).setAutoPadding(false);
  return Buffer.concat([decipher.update(encryptedBlock), decipher.final()]);
}
