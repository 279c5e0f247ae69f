import { DomainError } from '@cip/shared/contracts';
import type { ClearAuthorization, ExpireAuthorization, ReverseAuthorization } from './authorization.commands';
import type { AuthorizationEvent } from './authorization.events';
import { feeCharge, postingIdOf, type LedgerInstruction } from './authorization.ledger';
import { isAuthorization, type AuthorizationRecord, type AuthorizationState } from './authorization.state';

// ---------------------------------------------------------------------------------------------------
// What happens to an authorization after its decision: clearings (full, partial, several, above the hold
// within the program's tolerance, late after expiry), reversals (full, partial) and expiry. A network
// message whose `networkKey` the authorization has applied changes nothing.
// ---------------------------------------------------------------------------------------------------

export function decideClearing(command: ClearAuthorization, state: AuthorizationState): AuthorizationEvent[] {
  const { networkKey, amount, final, now } = command.data;
  const record = existing(state);
  if (record.networkKeys.includes(networkKey)) return [];
  if (record.type === 'refund') throw refusal(record, 'is a refund, credited when it was recorded');
  if (record.status === 'rejected') throw refusal(record, 'was rejected: nothing can clear');
  if (record.status === 'reversed') throw refusal(record, 'was reversed: nothing can clear');
  if (record.status === 'cleared' && !record.lapsed) throw refusal(record, 'is cleared already');
  requireAmount(amount);
  const clearable = clearableOf(record);
  if (amount > clearable) {
    throw refusal(
      record,
      `cannot clear ${amount}: at most ${clearable} minor units may still clear (the authorized amount ` +
        `${record.amount} and a tolerance of ${record.clearingAllowance})`,
    );
  }
  const figures = clearingFigures(record, amount, final);
  const { authorizationId } = record;
  const clearingId = postingIdOf(authorizationId, 'clearing', record.networkKeys.length);
  const fees = (openHoldId: string | null) =>
    record.feesCharged ? [] : feeCharge(authorizationId, record.feeTotal, openHoldId);

  if (record.holdId === null) {
    // The hold is gone (expired, or there never was one): a clearing without a hold, a force post.
    return [
      clearedEvent(authorizationId, networkKey, now, {
        amount,
        clearedTotal: figures.clearedTotal,
        late: true,
        ledger: [{ op: 'forcePost', postingId: clearingId, amount }, ...fees(null)],
      }),
    ];
  }
  const holdId = figures.remaining > 0 ? record.holdId : null;
  return [
    clearedEvent(authorizationId, networkKey, now, {
      ...figures,
      late: false,
      holdId,
      ledger: [
        {
          op: 'settleHold',
          holdId: record.holdId,
          amount,
          clearingId,
          final: holdId === null,
          overdraftAllowance: record.clearingAllowance,
        },
        ...fees(holdId),
      ],
    }),
  ];
}

export function decideReversal(
  command: ReverseAuthorization,
  state: AuthorizationState,
): AuthorizationEvent[] {
  const { networkKey, now } = command.data;
  const record = existing(state);
  if (record.networkKeys.includes(networkKey)) return [];
  if (record.type === 'refund') throw refusal(record, 'is a refund: nothing is held to reverse');
  if (record.holdId === null) throw refusal(record, `is ${record.status}: nothing is held to reverse`);
  const amount = command.data.amount ?? record.remaining;
  requireAmount(amount);
  if (amount > record.remaining) {
    throw refusal(record, `cannot reverse ${amount}: only ${record.remaining} minor units are held`);
  }
  const remaining = record.remaining - amount;
  const reversalId = postingIdOf(record.authorizationId, 'reversal', record.networkKeys.length);
  // The fees not charged yet stay held with what remains; a reversal of all that remains releases the
  // whole hold, fees included (no amount: a full reversal).
  return [
    {
      type: 'AuthorizationReversed',
      data: {
        authorizationId: record.authorizationId,
        amount,
        reversedTotal: record.reversed + amount,
        remaining,
        holdId: remaining > 0 ? record.holdId : null,
        networkKey,
        at: now,
        ledger: [
          {
            op: 'releaseHold',
            holdId: record.holdId,
            reversalId,
            ...(remaining > 0 ? { amount } : {}),
          },
        ],
      },
    },
  ];
}

export function decideExpiry(command: ExpireAuthorization, state: AuthorizationState): AuthorizationEvent[] {
  const { now } = command.data;
  const record = existing(state);
  if (record.status === 'rejected') throw refusal(record, 'was rejected: nothing is held to expire');
  // Nothing held any more (cleared, reversed, expired, a zero-amount check): a late scheduler tick.
  if (record.holdId === null || record.expiresAt === null) return [];
  if (Date.parse(now) < Date.parse(record.expiresAt)) {
    throw refusal(record, `does not expire before ${record.expiresAt}`);
  }
  return [
    {
      type: 'AuthorizationExpired',
      data: {
        authorizationId: record.authorizationId,
        amount: record.remaining,
        at: now,
        ledger: [{ op: 'expireHold', holdId: record.holdId }],
      },
    },
  ];
}

// The arithmetic of a clearing, in minor units, in one place.

/** What may still clear: the authorized amount not reversed nor cleared yet, plus the tolerance for tips. */
const clearableOf = (record: AuthorizationRecord): number =>
  record.amount - record.reversed - record.cleared + record.clearingAllowance;

/**
 * A clearing's figures: what has cleared with it, what the payment still holds afterwards (nothing once
 * the network says final, or once the authorized amount has cleared) and what a final clearing releases.
 */
function clearingFigures(record: AuthorizationRecord, amount: number, final: boolean) {
  const unreleased = Math.max(record.remaining - amount, 0);
  return {
    amount,
    clearedTotal: record.cleared + amount,
    remaining: final ? 0 : unreleased,
    released: final ? unreleased : 0,
  };
}

// ---------------------------------------------------------------------------------------------------
// Shared with the decisions
// ---------------------------------------------------------------------------------------------------

function existing(state: AuthorizationState): AuthorizationRecord {
  if (!isAuthorization(state)) throw new DomainError('not_found', 'Authorization was not found');
  return state;
}

export const refusal = (record: AuthorizationRecord, why: string) =>
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

/** The clearing event (also what a refund or a force post records with its decision). */
export function clearedEvent(
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
