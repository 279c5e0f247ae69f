import { Decider, DomainError } from '@cip/shared/contracts';
import type {
  AuthorizationCommand,
  ClearAuthorization,
  DecideAuthorization,
  ExpireAuthorization,
  ForcePostClearing,
  RefundAuthorization,
  ReverseAuthorization,
} from './authorization.commands';
import { authorizationEvents, type AuthorizationEvent } from './authorization.events';
import { feeIdOf, holdIdOf, type LedgerInstruction } from './authorization.ledger';
import {
  evolveAuthorization,
  isAuthorization,
  type AuthorizationRecord,
  type AuthorizationState,
} from './authorization.state';
import { decideAuthorization } from './decision/authorization-decision.policy';
import { clearingAllowance, holdExpiresAt } from './decision/authorization-program';
import {
  priceAuthorization,
  type MerchantCharge,
  type PricedAuthorization,
  type ProgramPricing,
} from './money';

// ---------------------------------------------------------------------------------------------------
// The authorization decider (issue 12, API-DECISIONS "Authorizations"): decisions, refunds, force posts,
// clearings, reversals and expiry, each with the ledger instructions that carry it to the wallet. A
// network message whose `networkKey` the authorization has seen changes nothing (a retry).
// ---------------------------------------------------------------------------------------------------

function decide(command: DecideAuthorization, state: AuthorizationState): AuthorizationEvent[] {
  const { facts, networkKey, ...parties } = command.data;
  if (isAuthorization(state)) return retryOrRefuse(state, networkKey);
  const outcome = decideAuthorization(facts);
  const { hold, ...answer } = outcome;
  const ledger: LedgerInstruction[] = hold
    ? [{ op: 'placeHold', holdId: holdIdOf(parties.authorizationId, 0), ...hold }]
    : [];
  return [
    {
      type: 'AuthorizationDecided',
      data: {
        ...parties,
        ...answer,
        merchant: facts.request.merchant,
        type: 'payment',
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
  const { charge, pricing, now, networkKey, originalAuthorizationId, ...parties } = command.data;
  if (isAuthorization(state)) return retryOrRefuse(state, networkKey);
  // A credit is never declined: the merchant has given the money back, whatever the card's status now.
  const priced = price(charge, pricing, { authFee: false, noFees: true }, 'refund');
  const { authorizationId } = parties;
  return [
    {
      type: 'AuthorizationDecided',
      data: {
        ...parties,
        ...priced,
        merchant: charge.merchant,
        type: 'refund',
        decision: 'confirmed',
        advice: null,
        originalAuthorizationId: originalAuthorizationId ?? null,
        clearingAllowance: 0,
        expiresAt: null,
        networkKey,
        decidedAt: now,
        ledger: [],
      },
    },
    cleared(authorizationId, networkKey, now, {
      amount: priced.amount,
      clearedTotal: priced.amount,
      late: false,
      ledger: [{ op: 'refund', refundId: authorizationId, amount: priced.amount }],
    }),
  ];
}

function forcePost(command: ForcePostClearing, state: AuthorizationState): AuthorizationEvent[] {
  const { charge, pricing, now, networkKey, ...parties } = command.data;
  if (isAuthorization(state)) return retryOrRefuse(state, networkKey);
  // No authorization was asked, so no auth fee; the fx and ATM fees still apply.
  const priced = price(charge, pricing, { authFee: false }, 'force-posted clearing');
  const { authorizationId } = parties;
  const holdId = holdIdOf(authorizationId, 0);
  return [
    {
      type: 'AuthorizationForcePosted',
      data: { ...parties, ...priced, merchant: charge.merchant, networkKey, at: now },
    },
    cleared(authorizationId, networkKey, now, {
      amount: priced.amount,
      clearedTotal: priced.amount,
      late: true,
      ledger: [
        { op: 'placeHold', holdId, amount: priced.amount, force: true },
        { op: 'settleHold', holdId, amount: priced.amount },
        ...feeCharge(authorizationId, priced.feeTotal),
      ],
    }),
  ];
}

function clear(command: ClearAuthorization, state: AuthorizationState): AuthorizationEvent[] {
  const { networkKey, amount, final, now } = command.data;
  const record = existing(state);
  if (record.networkKeys.includes(networkKey)) return [];
  if (record.type === 'refund') throw refused(record, 'is a refund, credited when it was recorded');
  if (record.status === 'rejected') throw refused(record, 'was rejected: nothing can clear');
  if (record.status === 'reversed') throw refused(record, 'was reversed: nothing can clear');
  if (record.status === 'cleared' && !record.lapsed) throw refused(record, 'is cleared already');
  requireAmount(amount);
  const clearable = record.amount - record.reversed - record.cleared + record.clearingAllowance;
  if (amount > clearable) {
    throw refused(
      record,
      `cannot clear ${amount}: at most ${clearable} minor units may still clear (the authorized amount ` +
        `${record.amount} and a tolerance of ${record.clearingAllowance})`,
    );
  }
  const { authorizationId } = record;
  const fees = record.feesCharged ? [] : feeCharge(authorizationId, record.feeTotal);
  const clearedTotal = record.cleared + amount;

  if (record.holdId === null) {
    // The hold is gone (expired, or there never was one): debit through a forced hold settled at once.
    const holdId = holdIdOf(authorizationId, record.holdsPlaced);
    return [
      cleared(authorizationId, networkKey, now, {
        amount,
        clearedTotal,
        late: true,
        ledger: [
          { op: 'placeHold', holdId, amount, force: true },
          { op: 'settleHold', holdId, amount },
          ...fees,
        ],
      }),
    ];
  }
  const remaining = final || amount >= record.remaining ? 0 : record.remaining - amount;
  const keep = keepHold(record, remaining, 0);
  return [
    cleared(authorizationId, networkKey, now, {
      amount,
      clearedTotal,
      remaining,
      released: final ? Math.max(record.remaining - amount, 0) : 0,
      late: false,
      holdId: keep.holdId,
      ledger: [...keep.ledger, { op: 'settleHold', holdId: record.holdId, amount }, ...fees],
    }),
  ];
}

function reverse(command: ReverseAuthorization, state: AuthorizationState): AuthorizationEvent[] {
  const { networkKey, now } = command.data;
  const record = existing(state);
  if (record.networkKeys.includes(networkKey)) return [];
  if (record.type === 'refund') throw refused(record, 'is a refund: nothing is held to reverse');
  if (record.holdId === null) throw refused(record, `is ${record.status}: nothing is held to reverse`);
  const amount = command.data.amount ?? record.remaining;
  requireAmount(amount);
  if (amount > record.remaining) {
    throw refused(record, `cannot reverse ${amount}: only ${record.remaining} minor units are held`);
  }
  const remaining = record.remaining - amount;
  // The fees not charged yet stay held with what remains; a full reversal releases them too.
  const keep = keepHold(record, remaining, record.feesCharged ? 0 : record.feeTotal);
  return [
    {
      type: 'AuthorizationReversed',
      data: {
        authorizationId: record.authorizationId,
        amount,
        reversedTotal: record.reversed + amount,
        remaining,
        holdId: keep.holdId,
        networkKey,
        at: now,
        ledger: [...keep.ledger, { op: 'releaseHold', holdId: record.holdId }],
      },
    },
  ];
}

function expire(command: ExpireAuthorization, state: AuthorizationState): AuthorizationEvent[] {
  const { now } = command.data;
  const record = existing(state);
  if (record.status === 'rejected') throw refused(record, 'was rejected: nothing is held to expire');
  // Nothing held any more (cleared, reversed, expired, a zero-amount check): a late scheduler tick.
  if (record.holdId === null || record.expiresAt === null) return [];
  if (Date.parse(now) < Date.parse(record.expiresAt)) {
    throw refused(record, `does not expire before ${record.expiresAt}`);
  }
  return [
    {
      type: 'AuthorizationExpired',
      data: {
        authorizationId: record.authorizationId,
        amount: record.remaining,
        at: now,
        ledger: [{ op: 'releaseHold', holdId: record.holdId }],
      },
    },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

function existing(state: AuthorizationState): AuthorizationRecord {
  if (!isAuthorization(state)) throw new DomainError('not_found', 'Authorization was not found');
  return state;
}

/** A message for an authorization that exists: the same message again is a retry; another is refused. */
function retryOrRefuse(record: AuthorizationRecord, networkKey: string): AuthorizationEvent[] {
  if (record.networkKeys.includes(networkKey)) return [];
  throw refused(record, 'exists already');
}

const refused = (record: AuthorizationRecord, why: string) =>
  new DomainError('invalid_state_transition', `Authorization ${record.authorizationId} ${why}`);

function requireAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new DomainError(
      'validation_error',
      `Amount ${amount} must be a positive whole number of minor units`,
      [{ field: 'amount', message: 'must be a positive whole number of minor units' }],
    );
  }
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

const feeCharge = (authorizationId: string, feeTotal: number): LedgerInstruction[] =>
  feeTotal > 0 ? [{ op: 'chargeFee', feeId: feeIdOf(authorizationId), amount: feeTotal }] : [];

/**
 * Keeps `remaining` (plus `extra`, fees still to charge) held under a new forced hold, placed before the
 * old hold is settled or released (authorization.ledger.ts says why); nothing when nothing remains.
 */
function keepHold(
  record: AuthorizationRecord,
  remaining: number,
  extra: number,
): { holdId: string | null; ledger: LedgerInstruction[] } {
  if (remaining === 0) return { holdId: null, ledger: [] };
  const holdId = holdIdOf(record.authorizationId, record.holdsPlaced);
  return { holdId, ledger: [{ op: 'placeHold', holdId, amount: remaining + extra, force: true }] };
}

function cleared(
  authorizationId: string,
  networkKey: string,
  at: string,
  data: { amount: number; clearedTotal: number; late: boolean; ledger: LedgerInstruction[] } & Partial<{
    remaining: number;
    released: number;
    holdId: string | null;
  }>,
): AuthorizationEvent {
  return {
    type: 'AuthorizationCleared',
    data: {
      authorizationId,
      amount: data.amount,
      clearedTotal: data.clearedTotal,
      remaining: data.remaining ?? 0,
      released: data.released ?? 0,
      late: data.late,
      holdId: data.holdId ?? null,
      networkKey,
      at,
      ledger: data.ledger,
    },
  };
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
    case 'ForcePostClearing':
      return forcePost(command, state);
    case 'ClearAuthorization':
      return clear(command, state);
    case 'ReverseAuthorization':
      return reverse(command, state);
    case 'ExpireAuthorization':
      return expire(command, state);
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
