import { IntegrationEvent, integrationEvent } from '@cip/shared/contracts';
import type { CardStatus } from './card.types';

/**
 * Stream category of cards (`crd-<uuid>`): the topic their events are published on. Other contexts react to
 * the integration events below (tokenization: a card's status changes).
 */
export const CARDS_TOPIC = 'crd';

/**
 * Every status change of a card has the same shape; the event type names the change (the card's own
 * events, published as they are written: `STATUS_CHANGES_MATCH_THE_CONTRACT` in the cards domain).
 */
export type CardStatusChangedEvent<Type extends string = string> = IntegrationEvent<
  Type,
  { cardId: string; previousStatus: CardStatus; reason?: string; cause?: string; at: string }
>;

export type CardActivatedEvent = CardStatusChangedEvent<'CardActivated'>;
export type CardFrozenEvent = CardStatusChangedEvent<'CardFrozen'>;
export type CardUnfrozenEvent = CardStatusChangedEvent<'CardUnfrozen'>;
export type CardRevokedEvent = CardStatusChangedEvent<'CardRevoked'>;
/** Three wrong PIN/CVV2 entries froze the card; an operator's unblock (active again, or left frozen). */
export type CardBlockedEvent = CardStatusChangedEvent<'CardBlocked'>;
export type CardUnblockedEvent = CardStatusChangedEvent<'CardUnblocked'>;

export const cardActivated = integrationEvent<CardActivatedEvent>(CARDS_TOPIC, 'CardActivated');
export const cardFrozen = integrationEvent<CardFrozenEvent>(CARDS_TOPIC, 'CardFrozen');
export const cardUnfrozen = integrationEvent<CardUnfrozenEvent>(CARDS_TOPIC, 'CardUnfrozen');
export const cardRevoked = integrationEvent<CardRevokedEvent>(CARDS_TOPIC, 'CardRevoked');
export const cardBlocked = integrationEvent<CardBlockedEvent>(CARDS_TOPIC, 'CardBlocked');
export const cardUnblocked = integrationEvent<CardUnblockedEvent>(CARDS_TOPIC, 'CardUnblocked');

/**
 * The changes after which what hangs on a card (its digital-wallet tokens) follows the card's status: the
 * tokenization context suspends, resumes or deletes a card's tokens on these.
 */
export const CARD_STATUS_EVENTS = [
  cardActivated,
  cardFrozen,
  cardUnfrozen,
  cardRevoked,
  cardBlocked,
  cardUnblocked,
] as const;
