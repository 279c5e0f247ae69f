import type { SpendingControlsUpdate } from './spending-controls';
import type { CardType } from './card.types';

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

export type CardCommand =
  CreateCard | CardStatusCommand | ApplyUserStatus | UpdateSpendingControls | CardRevealCommand;
