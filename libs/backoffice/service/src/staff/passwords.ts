import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Staff passwords are hashed with scrypt from node:crypto (memory-hard; no native dependency), with the
 * parameters of docs/operator-api.md: N=2^15, r=8, p=1 (32 MiB, about 100 ms), a 16-byte salt, 32 bytes out.
 * The stored form names its parameters, `scrypt$15$8$1$<salt>$<hash>` (base64url), so they can be raised
 * later without invalidating existing hashes.
 */
const PARAMETERS = { logN: 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { logN, r, p } = PARAMETERS;
  const hash = await derive(password, salt, logN, r, p);
  return ['scrypt', logN, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Compares in constant time; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, logN, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password, verified against when the email is unknown, so an unknown email costs the
 * same scrypt run as a known one (no account enumeration by timing).
 */
let decoy: Promise<string> | null = null;
export const decoyPasswordHash = (): Promise<string> =>
  (decoy ??= hashPassword(randomBytes(24).toString('base64url')));

/** How the staff service hashes and checks passwords: scrypt (`scryptPasswords`); tests count the calls. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** The hash verified against when there is no account (or no password yet): the same work, never a match. */
  decoyHash(): Promise<string>;
}

export const scryptPasswords: PasswordHasher = {
  hash: hashPassword,
  verify: verifyPassword,
  decoyHash: decoyPasswordHash,
};
