import type { CardView } from '@cip/cards/contract';
import { maskPan, type CardRecord } from '@cip/cards/domain';

export type { CardView };
export { renderCard } from '@cip/cards/contract';

/** The card as the API shows it: the vault reference stays in the card's events, never in a view. */
export function toCardView(card: CardRecord): CardView {
  return {
    id: card.cardId,
    distributorId: card.distributorId,
    userId: card.userId,
    walletId: card.walletId,
    type: card.type,
    status: card.status,
    bin: card.bin,
    last4: card.last4,
    maskedPan: maskPan(card.bin, card.last4),
    expMonth: card.expMonth,
    expYear: card.expYear,
    createdAt: card.createdAt,
    updatedAt: card.updatedAt,
  };
}
