import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';
import type { SpendingControls } from './spending-controls';
import type { CardBlock, CardStatus, CardType } from './card.types';

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

/**
 * Every status change has the same shape; the event type names the change. `reason` and `cause` are set
 * when a saga made the change (its cause is applied once: a redelivered event changes nothing); `block` on
 * a freeze is what keeps the card from being unfrozen until it is lifted.
 */
type StatusChange<Type extends string, Extra = object> = DomainEvent<
  Type,
  { cardId: string; previousStatus: CardStatus; reason?: string; cause?: string; at: string } & Extra
>;

export type CardActivated = StatusChange<'CardActivated'>;
export type CardFrozen = StatusChange<'CardFrozen', { block?: CardBlock }>;
export type CardUnfrozen = StatusChange<'CardUnfrozen'>;
export type CardRevoked = StatusChange<'CardRevoked'>;

/** A block on a card that was already frozen (it stays frozen, and now cannot be unfrozen). */
export type CardBlockPlaced = DomainEvent<
  'CardBlockPlaced',
  { cardId: string; block: CardBlock; reason: string; cause: string; at: string }
>;

/** A block lifted: the card stays as it is (frozen), its distributor may unfreeze it again. */
export type CardBlockLifted = DomainEvent<
  'CardBlockLifted',
  { cardId: string; block: CardBlock; cause: string; at: string }
>;

export type CardStatusChanged = CardActivated | CardFrozen | CardUnfrozen | CardRevoked;

/** The card's spending controls, replaced whole (amounts in minor units, validated). */
export type CardSpendingControlsUpdated = DomainEvent<
  'CardSpendingControlsUpdated',
  { cardId: string; spendingControls: SpendingControls; at: string }
>;

/**
 * Audit of the card's secrets leaving the vault (never the secrets): a reveal link was made (by the
 * distributor of the metadata, in the request of its correlation id), and the page was shown through it
 * (`linkRequestId`: the request that made the link). Neither changes the card.
 */
export type CardRevealLinkIssued = DomainEvent<
  'CardRevealLinkIssued',
  { cardId: string; expiresAt: string; at: string }
>;
export type CardDetailsRevealed = DomainEvent<
  'CardDetailsRevealed',
  { cardId: string; linkRequestId: string; at: string }
>;

export type CardEvent =
  | CardCreated
  | CardStatusChanged
  | CardBlockPlaced
  | CardBlockLifted
  | CardSpendingControlsUpdated
  | CardRevealLinkIssued
  | CardDetailsRevealed;

/** How card streams are read (no upcaster yet: every card event is still in its first shape). */
export const cardEvents = domainEventReader<CardEvent>();
