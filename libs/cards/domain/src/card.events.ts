import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';
import type { CardStatus, CardType } from './card.types';

// ---------------------------------------------------------------------------------------------------
// Domain events of a card stream (`crd-<uuid>`). A card is known here by its vault reference and what is
// printed in clear anyway (BIN, last four digits, expiry): the PAN and the CVV2 never leave the vault.
// ---------------------------------------------------------------------------------------------------

export type CardCreated = DomainEvent<
  'CardCreated',
  {
    cardId: string;
    distributorId: string;
    userId: string;
    walletId: string;
    type: CardType;
    /** Where the card starts: virtual cards are active at once. */
    status: CardStatus;
    vaultRef: string;
    bin: string;
    last4: string;
    expMonth: number;
    expYear: number;
    createdAt: string;
  }
>;

/** Every status change has the same shape; the event type names the change. */
type StatusChange<Type extends string> = DomainEvent<
  Type,
  { cardId: string; previousStatus: CardStatus; at: string }
>;

export type CardActivated = StatusChange<'CardActivated'>;
export type CardFrozen = StatusChange<'CardFrozen'>;
export type CardUnfrozen = StatusChange<'CardUnfrozen'>;
export type CardRevoked = StatusChange<'CardRevoked'>;

export type CardStatusChanged = CardActivated | CardFrozen | CardUnfrozen | CardRevoked;

export type CardEvent = CardCreated | CardStatusChanged;

/** How card streams are read (no upcaster yet: every card event is still in its first shape). */
export const cardEvents = domainEventReader<CardEvent>();
