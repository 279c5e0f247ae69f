import { CARDS_TOPIC } from '@cip/cards/contract';
import { cardEvents, type CardTrackingNumberUpdated } from '@cip/cards/domain';
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
  // A block changes no status a distributor sees: the card stays frozen either way (the card's `blocks`
  // show it). A hold on an active card freezes it: that is a CardFrozen, so `card.frozen`.
  CardBlockPlaced: null,
  CardBlockLifted: null,
  // The order is internal; the card's user sees it leave (card.shipped) and its tracking number.
  CardFulfilmentOrdered: null,
  CardShipped: 'card.shipped',
  CardTrackingNumberUpdated: 'card.trackingNumberUpdated',
  // The new card's card.created names the card it replaces; the old one's card.revoked says when it stops.
  CardReplaced: null,
  // The spec has no Event for an erasure: the Events recorded so far are redacted by the users context.
  CardShippingAddressErased: null,
  // Three wrong PIN/CVV2 entries in a row; only an operator's unblock lifts it (spec part 6, API-DECISIONS).
  CardBlocked: 'card.blocked',
  CardUnblocked: 'card.unblocked',
  // The count of wrong entries is the platform's own: a distributor sees the authorizations.
  CardVerificationFailed: null,
  CardVerificationPassed: null,
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
        ...(event.type === 'CardTrackingNumberUpdated' ? { fields: trackingFields(event.data) } : {}),
      },
    ];
  },
};

/** Spec part 6: `card.trackingNumberUpdated` carries the tracking number and both shipping methods. */
const trackingFields = ({
  trackingNumber,
  requestedShippingMethod,
  actualShippingMethod,
}: CardTrackingNumberUpdated['data']) => ({ trackingNumber, requestedShippingMethod, actualShippingMethod });
