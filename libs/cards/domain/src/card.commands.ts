import type { SpendingControlsUpdate } from './spending-controls';
import type { CardHold, CardType, CardVerificationMethod } from './card.types';
import type { CardReissueReason, PhysicalCardDetails, ShippingMethod } from './card-shipping';

// ---------------------------------------------------------------------------------------------------
// Commands of the card decider. Time (`now`), ids and what the vault issued arrive in the command.
// ---------------------------------------------------------------------------------------------------

export interface CreateCard {
  type: 'CreateCard';
  data: {
    cardId: string;
    distributorId: string;
    userId: string;
    walletId: string;
    type: CardType;
    /** What the card vault issued: its reference and the card's printed data, never the PAN. */
    issued: { vaultRef: string; bin: string; last4: string; expMonth: number; expYear: number };
    /** Physical cards: what is printed and where it ships (required for them, refused for virtual ones). */
    physical?: PhysicalCardDetails;
    /** The controls from the start (validated like an update); omitted: the program's defaults. */
    spendingControls?: SpendingControlsUpdate;
    /** The card this one replaces (a reissue). */
    replacesCardId?: string;
    now: string;
  };
}

export interface ActivateCard {
  type: 'ActivateCard';
  data: { now: string };
}

export interface FreezeCard {
  type: 'FreezeCard';
  data: { now: string };
}

export interface UnfreezeCard {
  type: 'UnfreezeCard';
  data: { now: string };
}

export interface RevokeCard {
  type: 'RevokeCard';
  data: { now: string };
}

export type CardStatusCommand = ActivateCard | FreezeCard | UnfreezeCard | RevokeCard;

/**
 * A user status change, applied to one of the user's cards by the user-stopped-cards saga. `cause` names
 * the user's status event: a cause the card has already applied is ignored, so a redelivery changes nothing.
 */
export interface ApplyUserStatus {
  type: 'ApplyUserStatus';
  data: { userStatus: UserStatusForCards; reason: string; cause: string; now: string };
}

/** The user statuses a card follows: `active` lifts the user's block (and unfreezes nothing). */
export type UserStatusForCards = 'active' | 'frozen' | 'disabled' | 'revoked' | 'deleted';

/** Replaces the card's spending controls; the update is validated by the decider. */
export interface UpdateSpendingControls {
  type: 'UpdateSpendingControls';
  data: { update: SpendingControlsUpdate; now: string };
}

export type CardCommand =
  | CreateCard
  | CardStatusCommand
  | ApplyUserStatus
  | UpdateSpendingControls
  | ShippingCommand
  | ReissueCard
  | RetireReplacedCard
  | EraseShippingAddress
  | CardOperatorCommand
  | CardRevealCommand;

// Physical cards and reissues ----------------------------------------------------------------------

/** The fulfilment provider accepted the card's print-and-ship order (its reference, for its notices). */
export interface RecordFulfilmentOrder {
  type: 'RecordFulfilmentOrder';
  data: { provider: string; orderId: string; now: string };
}

/** The fulfilment provider's shipping notice: dispatched, with a tracking number (first or changed). */
export interface RecordShipment {
  type: 'RecordShipment';
  data: { trackingNumber: string; shippingMethod?: ShippingMethod; now: string };
}

export type ShippingCommand = RecordFulfilmentOrder | RecordShipment;

/**
 * Asked on the card being replaced: names its replacement (`newCardId`, a fresh id; a card replaced
 * already keeps its first one) and revokes it at once when it was lost or stolen.
 */
export interface ReissueCard {
  type: 'ReissueCard';
  data: { reason: CardReissueReason; newCardId: string; now: string };
}

/**
 * The card's user was erased (the user-erased-cards saga): the shipping address, sealed with the user's key
 * in the log, reads as null from now on; this records it so the read models drop their copy too. `cause`
 * names the user's erasure: applied once.
 */
export interface EraseShippingAddress {
  type: 'EraseShippingAddress';
  data: { cause: string; now: string };
}

/** The replacement is active: a damaged or expired card it replaces stops (the replaced-card saga). */
export interface RetireReplacedCard {
  type: 'RetireReplacedCard';
  data: { replacedBy: string; cause: string; now: string };
}
/** An operator places a compliance or fraud hold: the card is frozen and cannot be unfrozen until it is lifted. */
export interface PlaceHold {
  type: 'PlaceHold';
  data: { hold: CardHold; reason: string; operator: string; now: string };
}

/** An operator lifts a hold: the card stays frozen (its distributor unfreezes it once no block remains). */
export interface LiftHold {
  type: 'LiftHold';
  data: { hold: CardHold; reason: string; operator: string; now: string };
}

/**
 * The outcome of a PIN or CVV2 check on an authorization (the authorizations context). Three consecutive
 * failures block the card; a success resets the count. `authorizationId` makes a retried record harmless.
 */
export interface RecordVerification {
  type: 'RecordVerification';
  data: { authorizationId: string; method: CardVerificationMethod; ok: boolean; now: string };
}

/** An operator lifts the PIN/CVV2 block (the only way it is lifted). */
export interface UnblockCard {
  type: 'UnblockCard';
  data: { reason: string; operator: string; now: string };
}

export type CardOperatorCommand = PlaceHold | LiftHold | RecordVerification | UnblockCard;

/**
 * A single-use link to the card's hosted reveal page was asked for (`POST /v1/cards/{id}/reveal`): recorded
 * for audit, refused on a revoked card.
 */
export interface IssueRevealLink {
  type: 'IssueRevealLink';
  data: { expiresAt: string; now: string };
}

/**
 * The hosted reveal page was opened through a link: recorded for audit before the page shows anything,
 * refused on a card revoked since the link was made (the page then shows nothing).
 */
export interface RecordCardReveal {
  type: 'RecordCardReveal';
  data: { linkRequestId: string; now: string };
}

export type CardRevealCommand = IssueRevealLink | RecordCardReveal;
