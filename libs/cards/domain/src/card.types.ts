// The value types the cards context publishes live in its contract (the published language); the domain
// speaks the same language.
export { CARD_STATUSES, CARD_TYPES } from '@cip/cards/contract';
export type { CardStatus, CardType } from '@cip/cards/contract';
// What keeps a frozen card from being unfrozen (holds, the user's freeze, the PIN/CVV2 block): see the contract.
export { CARD_BLOCKS, CARD_HOLDS, CARD_VERIFICATION_METHODS } from '@cip/cards/contract';
export type { CardBlock, CardHold, CardVerificationMethod } from '@cip/cards/contract';

/** The BIN's first six digits and the last four, the rest masked (API-DECISIONS: `411111******1234`). */
export const maskPan = (bin: string, last4: string): string => `${bin.slice(0, 6)}******${last4}`;
