import { DomainError } from '@cip/shared/contracts';
import type {
  CardOperatorCommand,
  LiftHold,
  PlaceHold,
  RecordVerification,
  UnblockCard,
} from './card.commands';
import type { CardEvent, CardVerificationEvent } from './card.events';
import type { CardRecord } from './card.decider';
import type { CardBlock } from './card.types';

// ---------------------------------------------------------------------------------------------------
// Operator holds and the PIN/CVV2 block (issue 11, spec parts 1, 3 and 7). Both rest on the card's blocks:
// a blocked card is `frozen`, and its distributor cannot unfreeze it (`card_unfreeze_blocked_error`) until
// every block is lifted. Revoked cards are never held or blocked: nothing can make them spend again.
// ---------------------------------------------------------------------------------------------------

/** Consecutive wrong PIN or CVV2 entries that block the card (API-DECISIONS, "Cards"). */
export const MAX_CONSECUTIVE_VERIFICATION_FAILURES = 3;

/**
 * How many of the card's latest verification records are remembered to recognise a retry (the same
 * authorization and method recorded again). A retry comes within moments of the first record, so a short
 * window is enough, and the card's state stays small however many authorizations it has seen.
 */
export const RECENT_VERIFICATIONS_KEPT = 32;

const PIN_BLOCK_REASON = `${MAX_CONSECUTIVE_VERIFICATION_FAILURES} consecutive wrong PIN or CVV2 entries`;

/** What the card's state keeps for holds and the PIN/CVV2 count (part of CardRecord). */
export interface CardHoldsState {
  /** The block that froze the card, when one did (null: frozen by its distributor, or not frozen). */
  frozenBy: CardBlock | null;
  /** Wrong PIN/CVV2 entries since the last success or unblock. */
  consecutiveFailures: number;
  /** `<authorizationId>:<method>` of the latest verification records (RECENT_VERIFICATIONS_KEPT). */
  recentVerifications: string[];
}

export const NO_HOLDS_STATE: CardHoldsState = {
  frozenBy: null,
  consecutiveFailures: 0,
  recentVerifications: [],
};

const refuseRevoked = (card: CardRecord, what: string) => {
  if (card.status === 'revoked') {
    throw new DomainError('invalid_state_transition', `Card ${card.cardId} is revoked: it cannot be ${what}`);
  }
};

/**
 * A hold freezes an active card (`CardFrozen` with the hold as its block, `card.frozen`); on a card that
 * is frozen already, or inactive (not activated yet), only the block is placed. A hold already there
 * changes nothing (a retry).
 */
function placeHold({ data }: PlaceHold, card: CardRecord): CardEvent[] {
  refuseRevoked(card, 'held');
  if (card.blocks.includes(data.hold)) return [];
  const { cardId } = card;
  const { hold: block, reason, now: at } = data;
  const by = `operator:${data.operator}`;
  if (card.status === 'active') {
    return [{ type: 'CardFrozen', data: { cardId, previousStatus: 'active', block, reason, by, at } }];
  }
  return [{ type: 'CardBlockPlaced', data: { cardId, block, reason, by, at } }];
}

/** Lifting a hold leaves the card frozen: its distributor unfreezes it once no other block remains. */
function liftHold({ data }: LiftHold, card: CardRecord): CardEvent[] {
  refuseRevoked(card, 'released from a hold');
  if (!card.blocks.includes(data.hold)) {
    throw new DomainError('invalid_state_transition', `Card ${card.cardId} has no ${data.hold} to lift`);
  }
  return [
    {
      type: 'CardBlockLifted',
      data: {
        cardId: card.cardId,
        block: data.hold,
        reason: data.reason,
        by: `operator:${data.operator}`,
        at: data.now,
      },
    },
  ];
}

/**
 * Counts wrong PIN/CVV2 entries on an active or frozen card; the third in a row blocks it (`CardBlocked`,
 * `card.blocked`), once. A success resets the count. Nothing is recorded for an inactive or revoked card
 * (it authorizes nothing), for a card blocked already, nor for a record seen already (a retry).
 */
function recordVerification({ data }: RecordVerification, card: CardRecord): CardEvent[] {
  if (card.status !== 'active' && card.status !== 'frozen') return [];
  if (card.blocks.includes('pin_cvv_attempts')) return [];
  const key = verificationKey(data.authorizationId, data.method);
  if (card.recentVerifications.includes(key)) return [];
  const { cardId } = card;
  const { authorizationId, method, now: at } = data;
  if (data.ok) {
    return card.consecutiveFailures === 0
      ? []
      : [{ type: 'CardVerificationPassed', data: { cardId, authorizationId, method, at } }];
  }
  const consecutiveFailures = card.consecutiveFailures + 1;
  const failed: CardEvent = {
    type: 'CardVerificationFailed',
    data: { cardId, authorizationId, method, consecutiveFailures, at },
  };
  if (consecutiveFailures < MAX_CONSECUTIVE_VERIFICATION_FAILURES) return [failed];
  return [
    failed,
    {
      type: 'CardBlocked',
      data: {
        cardId,
        previousStatus: card.status,
        block: 'pin_cvv_attempts',
        reason: PIN_BLOCK_REASON,
        at,
      },
    },
  ];
}

/**
 * Only an operator lifts the PIN/CVV2 block (`card.unblocked`). The card is active again when that block
 * is what froze it and no other block remains; a card its distributor (or a hold) had frozen stays frozen.
 */
function unblockCard({ data }: UnblockCard, card: CardRecord): CardEvent[] {
  refuseRevoked(card, 'unblocked');
  if (!card.blocks.includes('pin_cvv_attempts')) {
    throw new DomainError('invalid_state_transition', `Card ${card.cardId} is not blocked`);
  }
  const othersRemain = card.blocks.some((block) => block !== 'pin_cvv_attempts');
  const reactivates = card.frozenBy === 'pin_cvv_attempts' && !othersRemain;
  return [
    {
      type: 'CardUnblocked',
      data: {
        cardId: card.cardId,
        previousStatus: card.status,
        status: reactivates ? 'active' : card.status,
        block: 'pin_cvv_attempts',
        reason: data.reason,
        by: `operator:${data.operator}`,
        at: data.now,
      },
    },
  ];
}

export function decideCardOperation(command: CardOperatorCommand, card: CardRecord): CardEvent[] {
  switch (command.type) {
    case 'PlaceHold':
      return placeHold(command, card);
    case 'LiftHold':
      return liftHold(command, card);
    case 'RecordVerification':
      return recordVerification(command, card);
    case 'UnblockCard':
      return unblockCard(command, card);
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as CardOperatorCommand).type}`);
    }
  }
}

/** The card after a verification event (the blocks and status of CardBlocked and CardUnblocked included). */
export function evolveVerification(card: CardRecord, event: CardVerificationEvent): CardRecord {
  switch (event.type) {
    case 'CardVerificationFailed':
      return {
        ...card,
        consecutiveFailures: event.data.consecutiveFailures,
        recentVerifications: remembered(card, event.data.authorizationId, event.data.method),
      };
    case 'CardVerificationPassed':
      return {
        ...card,
        consecutiveFailures: 0,
        recentVerifications: remembered(card, event.data.authorizationId, event.data.method),
      };
    case 'CardBlocked':
      return {
        ...card,
        status: 'frozen',
        blocks: card.blocks.includes(event.data.block) ? card.blocks : [...card.blocks, event.data.block],
        frozenBy: event.data.previousStatus === 'active' ? event.data.block : card.frozenBy,
        updatedAt: event.data.at,
      };
    case 'CardUnblocked':
      return {
        ...card,
        status: event.data.status,
        blocks: card.blocks.filter((block) => block !== event.data.block),
        frozenBy: event.data.status === 'frozen' ? card.frozenBy : null,
        consecutiveFailures: 0,
        updatedAt: event.data.at,
      };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/**
 * Which block froze the card after a status change: the block of a blocking freeze, none after a freeze by
 * its distributor or any change out of `frozen`.
 */
export const frozenByAfter = (event: CardEvent): CardBlock | null =>
  event.type === 'CardFrozen' ? (event.data.block ?? null) : null;

const verificationKey = (authorizationId: string, method: string) => `${authorizationId}:${method}`;

const remembered = (card: CardRecord, authorizationId: string, method: string): string[] =>
  [...card.recentVerifications, verificationKey(authorizationId, method)].slice(-RECENT_VERIFICATIONS_KEPT);
