import { DomainError } from '@cip/shared/contracts';
import { hasRecentId } from './recent-ids';
import type {
  ChargeFee,
  CreditDeposit,
  ExpireHold,
  ForcePost,
  PlaceHold,
  Refund,
  RefuseDeposit,
  ReleaseHold,
  SettleHold,
} from './wallet.commands';
import type { HoldReleaseReason, WalletEvent } from './wallet.events';
import {
  existing,
  notOnComplianceHold,
  posting,
  requireAllowance,
  requirePositive,
  usdc,
} from './wallet.rules';
import { AuthorizationHold, availableBalance, OpenHold, WalletRecord, WalletState } from './wallet.state';

// ---------------------------------------------------------------------------------------------------
// Ledger postings: deposits, card authorization holds (placed, cleared in full or in parts, reversed in
// full or in parts, expired), force posts, refunds, fees
// ---------------------------------------------------------------------------------------------------

export function creditDeposit({ data }: CreditDeposit, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  if (data.alreadyRecorded || hasRecentId(wallet.usedIds, data.depositId)) return [];
  requirePositive(data.amount);
  return [
    {
      type: 'WalletDepositCredited',
      data: {
        depositId: data.depositId,
        amount: data.amount,
        transactionHash: data.transactionHash,
        logIndex: data.logIndex,
        blockNumber: data.blockNumber,
        fromAddress: data.fromAddress,
        source: data.source,
        at: data.now,
        ...posting(wallet, wallet.balance + data.amount, wallet.held),
      },
    },
  ];
}

export function refuseDeposit({ data }: RefuseDeposit, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  if (hasRecentId(wallet.usedIds, data.depositId)) return [];
  const { now, ...refused } = data;
  return [{ type: 'WalletDepositRefused', data: { walletId: wallet.walletId, ...refused, at: now } }];
}

export function placeHold({ data }: PlaceHold, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  if (wallet.holds.has(data.holdId) || hasRecentId(wallet.usedIds, data.holdId)) return [];
  requirePositive(data.amount);
  const allowance = requireAllowance(data.overdraftAllowance);
  const available = availableBalance(wallet);
  const overdraft = data.amount > available;
  if (!data.force) {
    notOnComplianceHold(wallet, 'spending');
    if (data.amount > available + allowance) {
      throw new DomainError(
        'insufficient_funds',
        `Available balance ${usdc(available)} does not cover ${usdc(data.amount)}`,
      );
    }
  }
  return [
    {
      type: 'WalletHoldPlaced',
      data: {
        holdId: data.holdId,
        amount: data.amount,
        kind: 'authorization',
        reference: data.reference ?? null,
        ...(data.cardId ? { cardId: data.cardId } : {}),
        overdraft,
        at: data.now,
        ...posting(wallet, wallet.balance, wallet.held + data.amount),
      },
    },
  ];
}

/**
 * The open hold `id` of a kind; null when it was closed already (a retried command), not found when the
 * wallet never had it.
 */
export function openHold<Kind extends OpenHold['kind']>(
  wallet: WalletRecord,
  id: string,
  kind: Kind,
  label: string,
): Extract<OpenHold, { kind: Kind }> | null {
  const hold = wallet.holds.get(id);
  if (hold?.kind === kind) return hold as Extract<OpenHold, { kind: Kind }>;
  if (hasRecentId(wallet.usedIds, id) && !hold) return null;
  throw new DomainError('not_found', `${label} ${id} was not found on wallet ${wallet.walletId}`);
}

/**
 * The open authorization hold a clearing, reversal or expiry `postingId` applies to; null when that
 * posting was recorded already (a retry: the posting's id is among the hold's, or among the wallet's
 * recent ids once the hold is closed). A posting the wallet has not seen on a closed hold is refused:
 * nothing is held any more (a late clearing is a force post); a hold the wallet never had is not found.
 */
function holdFor(
  wallet: WalletRecord,
  holdId: string,
  postingId: string,
  action: string,
): AuthorizationHold | null {
  const hold = wallet.holds.get(holdId);
  const seen = postingId !== holdId && hasRecentId(wallet.usedIds, postingId);
  if (hold?.kind === 'authorization') return hold.postingIds.includes(postingId) || seen ? null : hold;
  if (!hold && hasRecentId(wallet.usedIds, holdId)) {
    if (postingId === holdId || seen) return null;
    throw new DomainError(
      'invalid_state_transition',
      `Hold ${holdId} on wallet ${wallet.walletId} is closed: the ${action} ${postingId} cannot apply to it`,
    );
  }
  throw new DomainError('not_found', `Hold ${holdId} was not found on wallet ${wallet.walletId}`);
}

/** The id a posting on a hold goes by: its own (required for partial postings), else the hold's. */
function postingIdOf(id: string | undefined, holdId: string, field: string, partial: boolean): string {
  if (id === undefined && !partial) return holdId;
  if (typeof id !== 'string' || id.length === 0) {
    throw new DomainError('validation_error', `${field} is required for a partial posting on a hold`, [
      { field, message: 'must be a non-empty id, unique on the wallet' },
    ]);
  }
  return id;
}

/**
 * A reversal: frees `amount` of the hold (all it still holds when absent), closing the hold when nothing
 * remains. A reversal of more than the hold still holds is refused (`amount_exceeds_hold`).
 */
export function releaseHold({ data }: ReleaseHold, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  const partial = data.amount !== undefined;
  const reversalId = postingIdOf(data.reversalId, data.holdId, 'reversalId', partial);
  const hold = holdFor(wallet, data.holdId, reversalId, 'reversal');
  if (!hold) return [];
  if (partial) requirePositive(data.amount as number);
  const amount = data.amount ?? hold.amount;
  if (amount > hold.amount) {
    throw new DomainError(
      'amount_exceeds_hold',
      `Hold ${data.holdId} holds ${usdc(hold.amount)}: a reversal of ${usdc(amount)} exceeds it`,
    );
  }
  return [holdReleased(wallet, hold, data.holdId, amount, 'reversal', reversalId, data.now)];
}

/** Expiry: frees what the hold still holds and closes it; an expiry of a closed hold changes nothing. */
export function expireHold({ data }: ExpireHold, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  const hold = holdFor(wallet, data.holdId, data.holdId, 'expiry');
  if (!hold) return [];
  return [holdReleased(wallet, hold, data.holdId, hold.amount, 'expiry', undefined, data.now)];
}

function holdReleased(
  wallet: WalletRecord,
  hold: AuthorizationHold,
  holdId: string,
  amount: number,
  reason: HoldReleaseReason,
  reversalId: string | undefined,
  now: string,
): WalletEvent {
  return {
    type: 'WalletHoldReleased',
    data: {
      holdId,
      amount,
      ...(reversalId === undefined ? {} : { reversalId }),
      reason,
      remaining: hold.amount - amount,
      cleared: hold.cleared,
      at: now,
      ...posting(wallet, wallet.balance, wallet.held - amount),
    },
  };
}

/**
 * A clearing: debits `amount` and frees the part of the hold it consumes (a final clearing frees all the
 * hold still holds and closes it). The hold's clearings together may exceed its authorized amount, net of
 * its reversals, by at most the caller's `overdraftAllowance` (spec part 1, fact 4: tips within the
 * program's tolerance); beyond it the clearing is refused (`amount_exceeds_hold`) and nothing changes.
 * The balance may go negative by the part of the clearing that the hold did not cover.
 */
export function settleHold({ data }: SettleHold, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  const final = data.final ?? true;
  const clearingId = postingIdOf(data.clearingId, data.holdId, 'clearingId', !final);
  const hold = holdFor(wallet, data.holdId, clearingId, 'clearing');
  if (!hold) return [];
  requirePositive(data.amount);
  const allowance = requireAllowance(data.overdraftAllowance);
  const cleared = hold.cleared + data.amount;
  const limit = hold.authorized - hold.released + allowance;
  if (cleared > limit) {
    throw new DomainError(
      'amount_exceeds_hold',
      `Hold ${data.holdId} was authorized for ${usdc(hold.authorized - hold.released)} and cleared for ` +
        `${usdc(hold.cleared)}: a clearing of ${usdc(data.amount)} exceeds it beyond the tolerance of ${usdc(allowance)}`,
    );
  }
  const freed = final ? hold.amount : Math.min(data.amount, hold.amount);
  return [
    {
      type: 'WalletHoldSettled',
      data: {
        holdId: data.holdId,
        heldAmount: freed,
        amount: data.amount,
        clearingId,
        final,
        cleared,
        remaining: hold.amount - freed,
        at: data.now,
        ...posting(wallet, wallet.balance - data.amount, wallet.held - freed),
      },
    },
  ];
}

/** A force post: a clearing without an authorization, debited whatever the balance (and any compliance hold). */
export function forcePost({ data }: ForcePost, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  if (hasRecentId(wallet.usedIds, data.postingId)) return [];
  requirePositive(data.amount);
  return [
    {
      type: 'WalletForcePosted',
      data: {
        postingId: data.postingId,
        amount: data.amount,
        reference: data.reference ?? null,
        ...(data.cardId ? { cardId: data.cardId } : {}),
        at: data.now,
        ...posting(wallet, wallet.balance - data.amount, wallet.held),
      },
    },
  ];
}

export function refund({ data }: Refund, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  if (hasRecentId(wallet.usedIds, data.refundId)) return [];
  requirePositive(data.amount);
  return [
    {
      type: 'WalletRefunded',
      data: {
        refundId: data.refundId,
        amount: data.amount,
        reference: data.reference ?? null,
        ...(data.cardId ? { cardId: data.cardId } : {}),
        at: data.now,
        ...posting(wallet, wallet.balance + data.amount, wallet.held),
      },
    },
  ];
}

export function chargeFee({ data }: ChargeFee, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  if (hasRecentId(wallet.usedIds, data.feeId)) return [];
  requirePositive(data.amount);
  // Fees post whatever the balance: they follow a transaction that already happened.
  return [
    {
      type: 'WalletFeeCharged',
      data: {
        feeId: data.feeId,
        amount: data.amount,
        reference: data.reference ?? null,
        ...(data.cardId ? { cardId: data.cardId } : {}),
        at: data.now,
        ...posting(wallet, wallet.balance - data.amount, wallet.held),
      },
    },
  ];
}
