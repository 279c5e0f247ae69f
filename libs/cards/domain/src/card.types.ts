// The value types the cards context publishes live in its contract (the published language); the domain
// speaks the same language.
export { CARD_STATUSES, CARD_TYPES } from '@cip/cards/contract';
export type { CardStatus, CardType } from '@cip/cards/contract';

/** The BIN's first six digits and the last four, the rest masked (API-DECISIONS: `411111******1234`). */
export const maskPan = (bin: string, last4: string): string => `${bin.slice(0, 6)}******${last4}`;

/**
 * What keeps a frozen card from being unfrozen by its distributor (spec part 7,
 * `card_unfreeze_blocked_error`). `user_frozen`: the card's user is frozen (the user-stopped-cards saga);
 * compliance and fraud holds will join it.
 */
export const CARD_BLOCKS = ['user_frozen'] as const;
export type CardBlock = (typeof CARD_BLOCKS)[number];
