import type { HoldKind, LedgerFigures, WalletEvent } from './wallet.events';
import { HoldsMap } from './holds-map';
import { NO_RECENT_IDS, RecentIds, withRecentId } from './recent-ids';

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

/** The signed transaction journaled for a pending withdrawal (see `WithdrawalPayoutSigned`). */
export interface SignedPayout {
  hash: string;
  rawTransaction: string;
  refusedReason: string | null;
}

export interface PendingWithdrawal {
  amount: number;
  kind: 'withdrawal';
  toAddress: string;
  /** Null until the payout is signed. */
  payout: SignedPayout | null;
}

/** An open card authorization hold, its figures in minor units. */
export interface AuthorizationHold {
  kind: Exclude<HoldKind, 'withdrawal'>;
  /** What the hold still holds (counted in the wallet's `held`). */
  amount: number;
  /** The amount the hold was placed for. */
  authorized: number;
  /** The sum of its clearings so far. */
  cleared: number;
  /** The sum of its partial reversals so far. */
  released: number;
  /** The ids of its clearings and partial reversals, so that a retry changes nothing while it is open. */
  postingIds: readonly string[];
}

export type OpenHold = AuthorizationHold | PendingWithdrawal;

export interface WalletRecord extends LedgerFigures {
  status: 'active';
  walletId: string;
  userId: string;
  distributorId: string;
  depositAddress: string;
  addressIndex: number;
  chain: string;
  currency: 'USDC';
  /** Open holds by id (authorizations and pending withdrawals); see holds-map.ts. */
  holds: HoldsMap<OpenHold>;
  /**
   * Ids recently used by a posting (deposits, refunds, fees) or by a hold that is closed: a bounded,
   * immutable window (see recent-ids.ts), so a retried command changes nothing.
   */
  usedIds: RecentIds;
  complianceHold: { reason: string; since: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface FailedWallet {
  status: 'provisioning_failed';
  walletId: string;
  userId: string;
  distributorId: string;
  reason: string;
  createdAt: string;
  updatedAt: string;
}

export type WalletState = { status: 'absent' } | FailedWallet | WalletRecord;

export const isWallet = (state: WalletState): state is WalletRecord => state.status === 'active';

export const availableBalance = (wallet: LedgerFigures): number => wallet.balance - wallet.held;

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

/**
 * A clearing or a release of an authorization hold: a partial one leaves the hold open with what remains
 * and remembers its id; a final one (every event recorded before partial postings) closes the hold. The
 * posting's id joins the wallet's recent ids either way, so a retry after the hold closed changes nothing.
 */
function evolveHold(
  state: WalletRecord,
  wallet: WalletRecord,
  event: Extract<WalletEvent, { type: 'WalletHoldReleased' | 'WalletHoldSettled' }>,
): void {
  const { data } = event;
  const postingId = event.type === 'WalletHoldSettled' ? event.data.clearingId : event.data.reversalId;
  const hold = state.holds.get(data.holdId);
  const stays =
    event.type === 'WalletHoldSettled' ? event.data.final === false : (event.data.remaining ?? 0) > 0;
  let usedIds = state.usedIds;
  if (postingId && postingId !== data.holdId) usedIds = withRecentId(usedIds, postingId);
  if (stays && hold?.kind === 'authorization') {
    const next: AuthorizationHold = {
      ...hold,
      amount: data.remaining ?? 0,
      postingIds: postingId ? [...hold.postingIds, postingId] : hold.postingIds,
    };
    if (event.type === 'WalletHoldSettled') next.cleared = event.data.cleared ?? hold.cleared + data.amount;
    else next.released = hold.released + data.amount;
    wallet.holds = state.holds.set(data.holdId, next);
  } else {
    wallet.holds = state.holds.delete(data.holdId);
    usedIds = withRecentId(usedIds, data.holdId);
  }
  wallet.usedIds = usedIds;
}

export function evolveWallet(state: WalletState, event: WalletEvent): WalletState {
  if (event.type === 'WalletCreated') {
    const { data } = event;
    return {
      status: 'active',
      walletId: data.walletId,
      userId: data.userId,
      distributorId: data.distributorId,
      depositAddress: data.depositAddress,
      addressIndex: data.addressIndex,
      chain: data.chain,
      currency: data.currency,
      balance: 0,
      held: 0,
      holds: HoldsMap.empty(),
      usedIds: NO_RECENT_IDS,
      complianceHold: null,
      createdAt: data.createdAt,
      updatedAt: data.createdAt,
    };
  }
  if (event.type === 'WalletProvisioningFailed') {
    const { data } = event;
    return {
      status: 'provisioning_failed',
      walletId: data.walletId,
      userId: data.userId,
      distributorId: data.distributorId,
      reason: data.reason,
      createdAt: state.status === 'provisioning_failed' ? state.createdAt : data.at,
      updatedAt: data.at,
    };
  }
  if (!isWallet(state)) return state;
  const wallet: WalletRecord = { ...state, updatedAt: event.data.at };
  switch (event.type) {
    case 'WalletComplianceHoldPlaced':
      return { ...wallet, complianceHold: { reason: event.data.reason, since: event.data.at } };
    case 'WalletComplianceHoldReleased':
      return { ...wallet, complianceHold: null };
    case 'WalletDepositRefused':
      // Nothing posted: the refusal only marks the transfer as handled.
      return { ...wallet, usedIds: withRecentId(state.usedIds, event.data.depositId) };
    case 'WalletDepositCredited':
      wallet.usedIds = withRecentId(state.usedIds, event.data.depositId);
      break;
    case 'WalletRefunded':
      wallet.usedIds = withRecentId(state.usedIds, event.data.refundId);
      break;
    case 'WalletFeeCharged':
      wallet.usedIds = withRecentId(state.usedIds, event.data.feeId);
      break;
    case 'WalletHoldPlaced': {
      const { holdId, amount } = event.data;
      wallet.holds = state.holds.set(holdId, {
        amount,
        kind: 'authorization',
        authorized: amount,
        cleared: 0,
        released: 0,
        postingIds: [],
      });
      break;
    }
    case 'WithdrawalRequested': {
      const { withdrawalId, amount, toAddress } = event.data;
      wallet.holds = state.holds.set(withdrawalId, { amount, kind: 'withdrawal', toAddress, payout: null });
      break;
    }
    case 'WithdrawalPayoutSigned':
    case 'WithdrawalPayoutRefused': {
      const { withdrawalId } = event.data;
      const pending = state.holds.get(withdrawalId);
      if (pending?.kind !== 'withdrawal') return wallet;
      const payout: SignedPayout =
        event.type === 'WithdrawalPayoutSigned'
          ? { hash: event.data.hash, rawTransaction: event.data.rawTransaction, refusedReason: null }
          : { ...(pending.payout as SignedPayout), refusedReason: event.data.reason };
      return {
        ...wallet,
        holds: state.holds.set(withdrawalId, { ...pending, payout }),
      };
    }
    case 'WalletHoldReleased':
    case 'WalletHoldSettled':
      evolveHold(state, wallet, event);
      break;
    case 'WalletForcePosted':
      wallet.usedIds = withRecentId(state.usedIds, event.data.postingId);
      break;
    case 'WithdrawalConfirmed':
    case 'WithdrawalRejected':
      wallet.holds = state.holds.delete(event.data.withdrawalId);
      wallet.usedIds = withRecentId(state.usedIds, event.data.withdrawalId);
      break;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
  return { ...wallet, balance: event.data.balance, held: event.data.held };
}
