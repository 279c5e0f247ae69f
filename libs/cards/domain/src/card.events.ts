import { domainEventReader, type DomainEvent, type PersonalDataPolicy } from '@cip/shared/contracts';
import type { CardStatusChangedEvent } from '@cip/cards/contract';
import type { SpendingControls } from './spending-controls';
import type { CardBlock, CardStatus, CardType, CardVerificationMethod } from './card.types';
import type { CardReissueReason, PhysicalCardDetails, ShippingMethod } from './card-shipping';

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
    /** Set when the card was created with its own controls (else it has the program's defaults). */
    spendingControls?: SpendingControls;
    /** The card it replaces (a reissue). */
    replacesCardId?: string;
  } & Partial<PhysicalCardDetails>
>;

/**
 * Every status change has the same shape; the event type names the change. `reason` and `cause` are set
 * when a saga made the change (its cause is applied once: a redelivered event changes nothing); `block` on
 * a freeze is what keeps the card from being unfrozen until it is lifted. `by` names the operator who made
 * the change (`operator:<name>`), for holds.
 */
type StatusChange<Type extends string, Extra = object> = DomainEvent<
  Type,
  {
    cardId: string;
    previousStatus: CardStatus;
    reason?: string;
    cause?: string;
    by?: string;
    at: string;
  } & Extra
>;

export type CardActivated = StatusChange<'CardActivated'>;
export type CardFrozen = StatusChange<'CardFrozen', { block?: CardBlock }>;
export type CardUnfrozen = StatusChange<'CardUnfrozen'>;
export type CardRevoked = StatusChange<'CardRevoked'>;

/**
 * A block on a card that was already frozen (it stays frozen, and now cannot be unfrozen). `cause` is set
 * when a saga placed it, `by` when an operator did (a hold).
 */
export type CardBlockPlaced = DomainEvent<
  'CardBlockPlaced',
  { cardId: string; block: CardBlock; reason: string; cause?: string; by?: string; at: string }
>;

/** A block lifted: the card stays as it is (frozen), its distributor may unfreeze it again. */
export type CardBlockLifted = DomainEvent<
  'CardBlockLifted',
  { cardId: string; block: CardBlock; reason?: string; cause?: string; by?: string; at: string }
>;

/**
 * A wrong PIN or CVV2 on an authorization; `consecutiveFailures` counts them since the last success or
 * unblock (the third blocks the card). Never the entered value: only that it was wrong.
 */
export type CardVerificationFailed = DomainEvent<
  'CardVerificationFailed',
  {
    cardId: string;
    authorizationId: string;
    method: CardVerificationMethod;
    consecutiveFailures: number;
    at: string;
  }
>;

/** A right PIN or CVV2 after wrong ones: the count starts again (a success with no failure before is not recorded). */
export type CardVerificationPassed = DomainEvent<
  'CardVerificationPassed',
  { cardId: string; authorizationId: string; method: CardVerificationMethod; at: string }
>;

/**
 * Too many wrong PIN/CVV2 entries (`card.blocked`): the card is frozen with the `pin_cvv_attempts` block
 * (a card frozen already gets the block only; `previousStatus` says which).
 */
export type CardBlocked = DomainEvent<
  'CardBlocked',
  { cardId: string; previousStatus: CardStatus; block: 'pin_cvv_attempts'; reason: string; at: string }
>;

/**
 * An operator lifted the PIN/CVV2 block (`card.unblocked`). `status` is where the card is left: `active`
 * when the block was what froze it and no other block remains, else `frozen`.
 */
export type CardUnblocked = DomainEvent<
  'CardUnblocked',
  {
    cardId: string;
    previousStatus: CardStatus;
    status: CardStatus;
    block: 'pin_cvv_attempts';
    reason: string;
    by: string;
    at: string;
  }
>;

export type CardVerificationEvent =
  CardVerificationFailed | CardVerificationPassed | CardBlocked | CardUnblocked;

export type CardStatusChanged = CardActivated | CardFrozen | CardUnfrozen | CardRevoked;

/** The card's spending controls, replaced whole (amounts in minor units, validated). */
export type CardSpendingControlsUpdated = DomainEvent<
  'CardSpendingControlsUpdated',
  { cardId: string; spendingControls: SpendingControls; at: string }
>;

// Physical cards and reissues ----------------------------------------------------------------------

/** The fulfilment provider accepted the print-and-ship order (no public Event: nothing moved yet). */
export type CardFulfilmentOrdered = DomainEvent<
  'CardFulfilmentOrdered',
  { cardId: string; provider: string; orderId: string; at: string }
>;

/** The card left the fulfilment provider (`card.shipped`). */
export type CardShipped = DomainEvent<
  'CardShipped',
  { cardId: string; actualShippingMethod: ShippingMethod; at: string }
>;

/** A tracking number assigned or changed (`card.trackingNumberUpdated`, spec part 6). */
export type CardTrackingNumberUpdated = DomainEvent<
  'CardTrackingNumberUpdated',
  {
    cardId: string;
    trackingNumber: string;
    requestedShippingMethod: ShippingMethod;
    actualShippingMethod: ShippingMethod;
    at: string;
  }
>;

/** The card is replaced by `replacedBy` (a reissue); a lost or stolen one is revoked in the same append. */
export type CardReplaced = DomainEvent<
  'CardReplaced',
  { cardId: string; replacedBy: string; reason: CardReissueReason; at: string }
>;

/** The card's user was erased: its shipping address is gone (nothing personal inside; no public Event). */
export type CardShippingAddressErased = DomainEvent<
  'CardShippingAddressErased',
  { cardId: string; cause: string; at: string }
>;

export type CardShippingEvent = CardFulfilmentOrdered | CardShipped | CardTrackingNumberUpdated;

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
  | CardShippingEvent
  | CardReplaced
  | CardShippingAddressErased
  | CardVerificationEvent
  | CardRevealLinkIssued
  | CardDetailsRevealed;

/** How card streams are read (no upcaster yet: every card event is still in its first shape). */
export const cardEvents = domainEventReader<CardEvent>();

/**
 * The personal data of card events: a physical card's shipping address is its user's (sealed with the
 * user's key like the users context's own address events; it reads as null once the user was erased).
 */
export const cardPersonalData = {
  CardCreated: { subject: 'userId', fields: ['shippingAddress'] },
} as const satisfies PersonalDataPolicy;

/**
 * The cards contract publishes status changes as integration events (`cardFrozen`, ...): their data must stay
 * what the domain writes, or the build fails here rather than in a saga of another context (tokenization).
 */
export const STATUS_CHANGES_MATCH_THE_CONTRACT: (
  CardStatusChanged | CardBlocked | CardUnblocked
)['data'] extends CardStatusChangedEvent['data']
  ? true
  : never = true;
