import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';
import type { CardStatusChangedEvent } from '@cip/cards/contract';
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

export type CardEvent =
  CardCreated | CardStatusChanged | CardBlockPlaced | CardBlockLifted | CardSpendingControlsUpdated;

/** How card streams are read (no upcaster yet: every card event is still in its first shape). */
export const cardEvents = domainEventReader<CardEvent>();

/**
 * The cards contract publishes status changes as integration events (`cardFrozen`, ...): their data must stay
 * what the domain writes, or the build fails here rather than in a saga of another context (tokenization).
 */
export const STATUS_CHANGES_MATCH_THE_CONTRACT: CardStatusChanged['data'] extends CardStatusChangedEvent['data']
  ? true
  : never = true;
