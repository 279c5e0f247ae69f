import { CARDS_TOPIC } from '@cip/cards/contract';
import { cardEvents } from '@cip/cards/domain';
import type { PublicEventDraft, PublicEventMapper } from '@cip/shared/read-store';
import type { CardView } from './card-view';
import { cardsProjection } from './cards.projection';

const EVENT_NAMES = {
  CardCreated: 'card.created',
  // Beyond the spec: a physical card's activation is worth a webhook too (API-DECISIONS, "Cards").
  CardActivated: 'card.activated',
  CardFrozen: 'card.frozen',
  CardUnfrozen: 'card.unfrozen',
  CardRevoked: 'card.revoked',
  CardSpendingControlsUpdated: 'card.spendingControlsUpdated',
  // A block changes no status a distributor sees: the card stays frozen either way.
  CardBlockPlaced: null,
  CardBlockLifted: null,
  // Reveals are audit records of the platform, not part of the distributors' Event contract.
  CardRevealLinkIssued: null,
  CardDetailsRevealed: null,
} as const;

/** Card domain events -> public `card.*` Events (spec part 6, "Card events"), the card snapshot as data. */
export const cardPublicEvents: PublicEventMapper<CardView> = {
  topic: CARDS_TOPIC,
  snapshot: cardsProjection,
  toPublicEvents(recorded, snapshot): PublicEventDraft[] {
    const event = cardEvents.read(recorded);
    const eventName = EVENT_NAMES[event.type];
    if (!eventName) return [];
    const userId = snapshot?.userId;
    return [
      {
        eventName,
        eventTargetId: event.data.cardId,
        ...(userId ? { userId } : {}),
      },
    ];
  },
};
