import type { SpendingControlsUpdate } from './spending-controls';
import type { CardHold, CardType, CardVerificationMethod } from './card.types';

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

export type CardCommand =
  CreateCard | CardStatusCommand | ApplyUserStatus | UpdateSpendingControls | CardOperatorCommand;
