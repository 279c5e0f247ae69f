import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as docs/operator-api.md fixes it: SHA-1, 6 digits, 30-second steps (what every authenticator app does). */
const PERIOD_SECONDS = 30;
const ISSUER = 'Card-issuing platform';

const totpOf = (secret: string, label: string) =>
  new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });

/** A new secret of 160 random bits, base32 (what authenticator apps take). */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** The `otpauth://` URI an authenticator app reads (typed in or as a QR code made by the page). */
export const totpUri = (secret: string, email: string): string => totpOf(secret, email).toString();

/**
 * The time step of a valid code at `now` (one step of clock drift either way is accepted), or null. The
 * caller refuses a step at or before the last one accepted for the staff member: each code works once.
 */
export function totpStep(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret, 'staff').validate({ token: code, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / PERIOD_SECONDS) + delta;
}

/** The current code of a secret (tests, and nothing else, compute codes). */
export const totpCode = (secret: string, now: Date): string =>
  totpOf(secret, 'staff').generate({ timestamp: now.getTime() });
