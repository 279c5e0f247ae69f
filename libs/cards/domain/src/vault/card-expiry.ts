import { DomainError } from '@cip/shared/contracts';

export interface CardExpiry {
  /** 1 to 12. */
  expMonth: number;
  /** Four digits. */
  expYear: number;
}

/** A card is valid to the end of its expiry month, so the month is the one `lifetimeMonths` after issue. */
export function cardExpiry(issuedAt: Date, lifetimeMonths: number): CardExpiry {
  if (!Number.isInteger(lifetimeMonths) || lifetimeMonths < 1 || lifetimeMonths > 120) {
    throw new DomainError('validation_error', 'A card lifetime is 1 to 120 whole months', [
      { field: 'lifetimeMonths', message: 'must be an integer from 1 to 120' },
    ]);
  }
  const months = issuedAt.getUTCFullYear() * 12 + issuedAt.getUTCMonth() + lifetimeMonths;
  return { expMonth: (months % 12) + 1, expYear: Math.floor(months / 12) };
}

/** The expiry as the card verification algorithms take it: YYMM. */
export const expiryYymm = ({ expMonth, expYear }: CardExpiry): string =>
  `${String(expYear % 100).padStart(2, '0')}${String(expMonth).padStart(2, '0')}`;
