import { defineContext, type Environment } from '@cip/shared/contracts';
import type { CardHold, CardStatus, CardVerificationMethod } from './card.types';
import type { CardView } from './card-view';

// ---------------------------------------------------------------------------------------------------
// The cards context's APIs for two more audiences: the platform's operators (holds, the PIN/CVV2 unblock:
// the CLI now, a dashboard later) and the authorizations context (PIN/CVV2 outcomes). Both act in an
// environment on any distributor's card: neither is reachable with a distributor's API key.
// ---------------------------------------------------------------------------------------------------

/** Who made an operator change and why; both are recorded on the card's events (no personal data). */
export interface OperatorAction {
  /** The operator's name or login (`ada`), recorded as `operator:<name>`. */
  operator: string;
  /** A ticket or case reference, for the audit trail. */
  reason: string;
}

/**
 * Operator actions on cards (spec parts 1 and 7). A hold freezes an active card (`card.frozen`; on a card
 * frozen already, or not activated yet, it only adds the block) and keeps its distributor from unfreezing
 * it (`409 card_unfreeze_blocked_error` naming the blocks) until lifted; lifting leaves the card frozen for
 * its distributor to unfreeze. The PIN/CVV2 block is lifted by an operator only (`card.unblocked`). A
 * revoked card is refused (`409 invalid_state_transition`), as is lifting a block the card does not have.
 */
export interface CardOperationsApi {
  /** Placing a hold the card has already changes nothing (a retry). */
  placeHold(
    environment: Environment,
    cardId: string,
    hold: CardHold,
    action: OperatorAction,
  ): Promise<CardView>;
  liftHold(
    environment: Environment,
    cardId: string,
    hold: CardHold,
    action: OperatorAction,
  ): Promise<CardView>;
  /** Active again when the block is what froze the card and no other block remains; else still frozen. */
  unblockCard(environment: Environment, cardId: string, action: OperatorAction): Promise<CardView>;
}

export const CARD_OPERATIONS_API = Symbol('CARD_OPERATIONS_API');

export const cardOperationsContract = defineContext<CardOperationsApi>({
  name: 'cards.operations',
  token: CARD_OPERATIONS_API,
  methods: {
    placeHold: ['environment', 'cardId', 'hold', 'action'],
    liftHold: ['environment', 'cardId', 'hold', 'action'],
    unblockCard: ['environment', 'cardId', 'action'],
  },
});

/** The outcome of one PIN or CVV2 check on an authorization. Never the value entered. */
export interface CardVerificationRecord {
  /** The authorization the check belongs to: recording it again (a retry) changes nothing. */
  authorizationId: string;
  method: CardVerificationMethod;
  ok: boolean;
}

/** The card after the record: `blocked` once three consecutive checks have failed. */
export interface CardVerificationOutcome {
  cardId: string;
  status: CardStatus;
  blocked: boolean;
  /** Wrong entries since the last right one (or the last unblock). */
  consecutiveFailures: number;
}

/**
 * What the authorizations context reports about PIN and CVV2 checks (API-DECISIONS, "Cards"): three
 * consecutive wrong entries, PIN and CVV2 together, freeze the card with the `pin_cvv_attempts` block
 * (`card.blocked`), once; a right entry resets the count. An inactive or revoked card records nothing (it
 * authorizes nothing). `404 not_found` for an unknown card.
 */
export interface CardVerificationApi {
  recordVerification(
    environment: Environment,
    cardId: string,
    record: CardVerificationRecord,
  ): Promise<CardVerificationOutcome>;
}

export const CARD_VERIFICATION_API = Symbol('CARD_VERIFICATION_API');

export const cardVerificationContract = defineContext<CardVerificationApi>({
  name: 'cards.verification',
  token: CARD_VERIFICATION_API,
  methods: { recordVerification: ['environment', 'cardId', 'record'] },
});
