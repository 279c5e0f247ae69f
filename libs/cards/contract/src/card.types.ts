// ---------------------------------------------------------------------------------------------------
// Value types of the cards context, as every other context and the API see them
// ---------------------------------------------------------------------------------------------------

/** Spec part 3: a card is inactive, then active, then frozen or revoked (revoked is terminal). */
export const CARD_STATUSES = ['inactive', 'active', 'frozen', 'revoked'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];

/** Virtual cards only so far; physical cards come with shipping. */
export const CARD_TYPES = ['virtual'] as const;
export type CardType = (typeof CARD_TYPES)[number];
