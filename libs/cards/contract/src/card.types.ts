// ---------------------------------------------------------------------------------------------------
// Value types of the cards context, as every other context and the API see them
// ---------------------------------------------------------------------------------------------------

/** Spec part 3: a card is inactive, then active, then frozen or revoked (revoked is terminal). */
export const CARD_STATUSES = ['inactive', 'active', 'frozen', 'revoked'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];

/** Virtual cards spend at once; physical cards are shipped first (`card-shipping.ts`). */
export const CARD_TYPES = ['virtual', 'physical'] as const;
export type CardType = (typeof CARD_TYPES)[number];

/**
 * Operator holds on a card (spec part 1: "compliance holds can be placed on a user's wallet or card"; a user
 * flagged for suspicious activity can have a fraud hold). A hold freezes the card and keeps its distributor
 * from unfreezing it until an operator lifts it.
 */
export const CARD_HOLDS = ['compliance_hold', 'fraud_hold'] as const;
export type CardHold = (typeof CARD_HOLDS)[number];

/**
 * What keeps a frozen card from being unfrozen by its distributor (spec part 7,
 * `card_unfreeze_blocked_error`), shown on the card as `blocks`: `user_frozen` (the card's user is frozen;
 * lifted when the user is active again), the operator holds, and `pin_cvv_attempts` (three consecutive wrong
 * PIN or CVV2 entries, `card.blocked`; only an operator unblocks it, `card.unblocked`).
 */
export const CARD_BLOCKS = ['user_frozen', ...CARD_HOLDS, 'pin_cvv_attempts'] as const;
export type CardBlock = (typeof CARD_BLOCKS)[number];

/** How a cardholder proves the card on an authorization: the PIN (card present) or the CVV2 (not present). */
export const CARD_VERIFICATION_METHODS = ['pin', 'cvv2'] as const;
export type CardVerificationMethod = (typeof CARD_VERIFICATION_METHODS)[number];
