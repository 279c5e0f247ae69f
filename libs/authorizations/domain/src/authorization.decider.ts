import { Decider, DomainError } from '@cip/shared/contracts';
import type {
  AbandonAuthorization,
  AuthorizationCommand,
  DecideAuthorization,
  ForcePostClearing,
  RecordRefundCredit,
  RefundAuthorization,
  ReleaseRefund,
  ReserveRefund,
} from './authorization.commands';
import { authorizationEvents, type AuthorizationEvent } from './authorization.events';
import { feeCharge, type LedgerInstruction } from './authorization.ledger';
import {
  evolveAuthorization,
  isAuthorization,
  type AuthorizationRecord,
  type AuthorizationState,
} from './authorization.state';
import {
  clearedEvent,
  decideClearing,
  decideExpiry,
  decideReversal,
  refusal,
} from './authorization.settlement';
import { decideAuthorization, requireSpecTime } from './decision/authorization-decision.policy';
import { clearingAllowance, holdExpiresAt } from './decision/authorization-program';
import {
  priceAuthorization,
  type MerchantCharge,
  type PricedAuthorization,
  type ProgramPricing,
} from './money';

// ---------------------------------------------------------------------------------------------------
// The authorization decider (issue 12, API-DECISIONS "Authorizations"): decisions, refunds and force posts
// here; clearings, reversals and expiry in `authorization.settlement.ts`. Every event carries the ledger
// instructions that take it to the wallet. A network message whose `networkKey` the authorization has
// seen changes nothing (a retry).
// ---------------------------------------------------------------------------------------------------

/** Why a decision reached after its authorization was abandoned is declined (for operators). */
export const DECIDED_AFTER_ABANDONMENT =
  'decided after the network timeout: the hold placed for it was released as unrecorded';

function decide(command: DecideAuthorization, state: AuthorizationState): AuthorizationEvent[] {
  const { facts, networkKey, ...parties } = command.data;
  if (isAuthorization(state)) return retryOrRefuse(state, networkKey);
  // Abandoned (its hold was placed, no decision recorded in time, the hold released): a request decided this
  // late is declined; an advice is the network's own decision (it stood in) and is recorded as ever.
  const late = state.status === 'abandoned' && !facts.request.advice;
  const outcome = late
    ? {
        ...decideAuthorization(facts),
        decision: 'rejected' as const,
        declineReasonCode: 'other' as const,
        detail: DECIDED_AFTER_ABANDONMENT,
        hold: undefined,
      }
    : decideAuthorization(facts);
  const { hold, ...answer } = outcome;
  // The hold of an advice recorded on an abandoned authorization gets an id of its own: the wallet has seen
  // the abandoned hold's id closed, and would take a hold under it again as a retry (changing nothing).
  const holdId = state.status === 'abandoned' ? `${parties.authorizationId}.advice` : parties.authorizationId;
  const ledger: LedgerInstruction[] = hold ? [{ op: 'placeHold', holdId, ...hold }] : [];
  return [
    {
      type: 'AuthorizationDecided',
      data: {
        ...parties,
        ...answer,
        merchant: facts.request.merchant,
        type: 'payment',
        ...(facts.threeDs ? { threeDs: { eci: facts.threeDs.eci, verified: facts.threeDs.verified } } : {}),
        advice: facts.request.advice ?? null,
        originalAuthorizationId: null,
        clearingAllowance: hold ? clearingAllowance(outcome.amount, facts.program) : 0,
        expiresAt: hold ? holdExpiresAt(facts.request.at, facts.program) : null,
        networkKey,
        decidedAt: facts.request.at,
        ledger,
      },
    },
  ];
}

function refund(command: RefundAuthorization, state: AuthorizationState): AuthorizationEvent[] {
  const { charge, pricing, now, networkKey, originalAuthorizationId, declined, ...parties } = command.data;
  if (isAuthorization(state)) return retryOrRefuse(state, networkKey);
  requireSpecTime(now, 'Refund time');
  // Never declined for the card or the cardholder: the merchant has given the money back. Declined only when
  // it gives back more than its payment cleared and was not refunded (`declined`, decided on the payment's
  // stream); credited by the wallet ledger after this is recorded, then cleared (`RecordRefundCredit`).
  const priced = price(charge, pricing, { authFee: false, noFees: true }, 'refund');
  return [
    {
      type: 'AuthorizationDecided',
      data: {
        ...parties,
        ...priced,
        merchant: charge.merchant,
        type: 'refund',
        ...(declined
          ? { decision: 'rejected' as const, declineReasonCode: 'other' as const, detail: declined }
          : { decision: 'confirmed' as const }),
        advice: null,
        originalAuthorizationId: originalAuthorizationId ?? null,
        clearingAllowance: 0,
        expiresAt: null,
        networkKey,
        decidedAt: now,
        ledger: declined ? [] : [{ op: 'refund', refundId: parties.authorizationId, amount: priced.amount }],
      },
    },
  ];
}

/** The refund's credit done (cleared) or refused by the ledger (rejected); once. */
function recordRefundCredit(command: RecordRefundCredit, state: AuthorizationState): AuthorizationEvent[] {
  const record = isAuthorization(state) ? state : null;
  if (!record || record.type !== 'refund' || record.status !== 'confirmed') return [];
  const { authorizationId, amount } = record;
  const { data } = command;
  if (!data.credited) {
    return [
      {
        type: 'AuthorizationCreditRefused',
        data: { authorizationId, amount, reason: data.reason, at: data.now },
      },
    ];
  }
  // The network's refund key again: a clearing file line cannot carry it, so the refund cannot clear twice.
  return [
    clearedEvent(authorizationId, record.networkKeys[0], data.now, {
      amount,
      clearedTotal: amount,
      late: false,
      ledger: [],
    }),
  ];
}

/** Why a refund that names its payment is declined: it would give back more than the payment cleared. */
export const REFUND_EXCEEDS_CLEARED = 'refund exceeds what its payment cleared and was not refunded';

function reserveRefund(command: ReserveRefund, state: AuthorizationState): AuthorizationEvent[] {
  if (!isAuthorization(state) || state.type !== 'payment') {
    throw new DomainError('not_found', 'The refunded payment was not found');
  }
  const { refundAuthorizationId, amount, now } = command.data;
  if (state.refunds?.[refundAuthorizationId] !== undefined) return [];
  const refunded = state.refunded ?? 0;
  const refundable = state.cleared - refunded;
  if (amount > refundable) {
    throw new DomainError(
      'invalid_state_transition',
      `${REFUND_EXCEEDS_CLEARED}: ${amount} minor units asked, ${Math.max(refundable, 0)} refundable ` +
        `(${state.cleared} cleared, ${refunded} refunded)`,
    );
  }
  return [
    {
      type: 'AuthorizationRefundReserved',
      data: {
        authorizationId: state.authorizationId,
        refundAuthorizationId,
        amount,
        refundedTotal: refunded + amount,
        at: now,
      },
    },
  ];
}

function releaseRefund(command: ReleaseRefund, state: AuthorizationState): AuthorizationEvent[] {
  if (!isAuthorization(state)) return [];
  const { refundAuthorizationId, now } = command.data;
  const amount = state.refunds?.[refundAuthorizationId];
  if (amount === undefined) return [];
  return [
    {
      type: 'AuthorizationRefundReleased',
      data: {
        authorizationId: state.authorizationId,
        refundAuthorizationId,
        amount,
        refundedTotal: (state.refunded ?? 0) - amount,
        at: now,
      },
    },
  ];
}

function abandon(command: AbandonAuthorization, state: AuthorizationState): AuthorizationEvent[] {
  // A decision was recorded (the hold is its own), or the abandonment was: nothing to do.
  if (state.status !== 'absent') return [];
  const { authorizationId, walletId, holdId, placedAt, now } = command.data;
  return [
    {
      type: 'AuthorizationAbandoned',
      data: {
        authorizationId,
        walletId,
        holdId,
        placedAt,
        at: now,
        // The release the network's own reversal of an unanswered request makes (`releaseUnrecordedHold`):
        // the same reversal id, so whichever comes second changes nothing.
        ledger: [{ op: 'releaseHold', holdId, reversalId: holdId }],
      },
    },
  ];
}

function forcePost(command: ForcePostClearing, state: AuthorizationState): AuthorizationEvent[] {
  const { charge, pricing, now, networkKey, ...parties } = command.data;
  if (isAuthorization(state)) return retryOrRefuse(state, networkKey);
  requireSpecTime(now, 'Clearing time');
  // No authorization was asked, so no auth fee; the fx and ATM fees still apply.
  const priced = price(charge, pricing, { authFee: false }, 'force-posted clearing');
  const { authorizationId } = parties;
  return [
    {
      type: 'AuthorizationForcePosted',
      data: { ...parties, ...priced, merchant: charge.merchant, networkKey, at: now },
    },
    clearedEvent(authorizationId, networkKey, now, {
      amount: priced.amount,
      clearedTotal: priced.amount,
      late: true,
      ledger: [
        { op: 'forcePost', postingId: authorizationId, amount: priced.amount },
        ...feeCharge(authorizationId, priced.feeTotal, null),
      ],
    }),
  ];
}

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

/** A message for an authorization that exists: the same message again is a retry; another is refused. */
function retryOrRefuse(record: AuthorizationRecord, networkKey: string): AuthorizationEvent[] {
  if (record.networkKeys.includes(networkKey)) return [];
  throw refusal(record, 'exists already');
}

function price(
  charge: MerchantCharge,
  pricing: ProgramPricing,
  options: { authFee: boolean; noFees?: boolean },
  what: string,
): PricedAuthorization {
  const priced = priceAuthorization(charge, pricing, options);
  if (!priced.ok)
    throw new DomainError('validation_error', `The ${what} cannot be recorded: ${priced.detail}`);
  const { ok: _ok, ...amounts } = priced;
  if (amounts.amount <= 0) throw new DomainError('validation_error', `A ${what} needs a positive amount`);
  return amounts;
}

// ---------------------------------------------------------------------------------------------------
// The decider
// ---------------------------------------------------------------------------------------------------

export function decideAuthorizationCommand(
  command: AuthorizationCommand,
  state: AuthorizationState,
): AuthorizationEvent[] {
  switch (command.type) {
    case 'DecideAuthorization':
      return decide(command, state);
    case 'RefundAuthorization':
      return refund(command, state);
    case 'AbandonAuthorization':
      return abandon(command, state);
    case 'RecordRefundCredit':
      return recordRefundCredit(command, state);
    case 'ReserveRefund':
      return reserveRefund(command, state);
    case 'ReleaseRefund':
      return releaseRefund(command, state);
    case 'ForcePostClearing':
      return forcePost(command, state);
    case 'ClearAuthorization':
      return decideClearing(command, state);
    case 'ReverseAuthorization':
      return decideReversal(command, state);
    case 'ExpireAuthorization':
      return decideExpiry(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`Unknown authorization command ${(unknown as { type: string }).type}`);
    }
  }
}

export const authorizationDecider: Decider<AuthorizationCommand, AuthorizationEvent, AuthorizationState> = {
  decide: decideAuthorizationCommand,
  evolve: evolveAuthorization,
  initialState: () => ({ status: 'absent' }),
  events: authorizationEvents,
};
