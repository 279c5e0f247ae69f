import type { ProgramPricing } from '../money';

/**
 * What a program sets for its authorizations, with the distributor: the pricing (fx rates and fees, see
 * `ProgramPricing`), how far a clearing may exceed its authorization, and how long an uncleared hold lasts.
 */
export interface AuthorizationProgram extends ProgramPricing {
  /**
   * How far clearings may exceed what was authorized (tips added after the authorization, spec fact 4): a
   * fraction of the authorized amount in 6 implied decimals (`200000` = 20%), rounded down to the minor
   * unit. Absent or 0: a clearing may not exceed it at all.
   */
  clearingTolerance?: number;
  /** Days an uncleared hold is kept before it lapses (API-DECISIONS: 7 by default). */
  holdExpiryDays?: number;
}

export const DEFAULT_HOLD_EXPIRY_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The minor units a clearing may exceed `authorized` by under the program. */
export function clearingAllowance(authorized: number, program: AuthorizationProgram): number {
  const tolerance = program.clearingTolerance ?? 0;
  // Rounded down: the tolerance is a ceiling the program set, never to be exceeded by rounding.
  return Number((BigInt(authorized) * BigInt(tolerance)) / 1_000_000n);
}

/** When a hold decided at `decidedAt` lapses (ISO 8601). */
export function holdExpiresAt(decidedAt: string, program: AuthorizationProgram): string {
  const days = program.holdExpiryDays ?? DEFAULT_HOLD_EXPIRY_DAYS;
  return new Date(Date.parse(decidedAt) + days * DAY_MS).toISOString();
}
