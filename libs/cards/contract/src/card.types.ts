// ---------------------------------------------------------------------------------------------------
// Value types of the cards context, as every other context and the API see them
// ---------------------------------------------------------------------------------------------------

/** Spec part 3: a card is inactive, then active, then frozen or revoked (revoked is terminal). */
export const CARD_STATUSES = ['inactive', 'active', 'frozen', 'revoked'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];

/** Virtual cards spend at once; physical cards are shipped first (`card-shipping.ts`). */
export const CARD_TYPES = ['virtual', 'physical'] as const;
export type CardType = (typeof CARD_TYPES)[number];
