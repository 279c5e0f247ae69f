import { DomainError } from '@cip/shared/contracts';
import { hasRecentId } from './recent-ids';
import type {
  ConfirmWithdrawal,
  JournalPayout,
  RejectWithdrawal,
  RequestWithdrawal,
} from './wallet.commands';
import type { WalletEvent } from './wallet.events';
import { openHold } from './wallet.ledger';
import { existing, notOnComplianceHold, posting, requirePositive, usdc } from './wallet.rules';
import { availableBalance, PendingWithdrawal, WalletRecord, WalletState } from './wallet.state';

// ---------------------------------------------------------------------------------------------------
// Withdrawals: requested (funds held), payout journaled, confirmed or rejected
// ---------------------------------------------------------------------------------------------------

export function requestWithdrawal({ data }: RequestWithdrawal, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  if (wallet.holds.has(data.withdrawalId) || hasRecentId(wallet.usedIds, data.withdrawalId)) return [];
  requirePositive(data.amount);
  notOnComplianceHold(wallet, 'withdrawal');
  const available = availableBalance(wallet);
  if (data.amount > available) {
    throw new DomainError(
      'insufficient_funds',
      `Available balance ${usdc(available)} does not cover ${usdc(data.amount)}`,
      [{ field: 'amount', message: `exceeds the available balance of ${usdc(available)}` }],
    );
  }
  return [
    {
      type: 'WithdrawalRequested',
      data: {
        withdrawalId: data.withdrawalId,
        amount: data.amount,
        toAddress: data.toAddress,
        at: data.now,
        ...posting(wallet, wallet.balance, wallet.held + data.amount),
      },
    },
  ];
}

/** The pending withdrawal `withdrawalId`; null when it was resolved already (a retried payout). */
const pendingWithdrawal = (wallet: WalletRecord, withdrawalId: string): PendingWithdrawal | null =>
  openHold(wallet, withdrawalId, 'withdrawal', 'Withdrawal');

export function journalPayout({ data }: JournalPayout, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  const pending = pendingWithdrawal(wallet, data.withdrawalId);
  // A resolved withdrawal must not be paid (again): refusing the entry keeps its payout from being broadcast.
  if (!pending)
    throw new DomainError(
      'invalid_state_transition',
      `Withdrawal ${data.withdrawalId} is no longer pending: no payout may be signed for it`,
    );
  // EVM addresses differ only by their checksum casing.
  if (data.amount !== pending.amount || data.toAddress.toLowerCase() !== pending.toAddress.toLowerCase())
    throw new DomainError(
      'validation_error',
      `The payout signed for withdrawal ${data.withdrawalId} does not match its amount or destination`,
    );
  const current = pending.payout;
  const target = {
    walletId: wallet.walletId,
    withdrawalId: data.withdrawalId,
    hash: data.hash,
    at: data.now,
  };
  const events: WalletEvent[] = [];
  if (
    !current ||
    current.hash !== data.hash ||
    current.rawTransaction !== data.rawTransaction ||
    (current.refusedReason !== null && data.refusedReason === null)
  )
    events.push({
      type: 'WithdrawalPayoutSigned',
      data: {
        ...target,
        toAddress: data.toAddress,
        amount: data.amount,
        rawTransaction: data.rawTransaction,
      },
    });
  if (data.refusedReason !== null && (events.length > 0 || current?.refusedReason !== data.refusedReason))
    events.push({ type: 'WithdrawalPayoutRefused', data: { ...target, reason: data.refusedReason } });
  return events;
}

export function confirmWithdrawal({ data }: ConfirmWithdrawal, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  const pending = pendingWithdrawal(wallet, data.withdrawalId);
  if (!pending) return [];
  return [
    {
      type: 'WithdrawalConfirmed',
      data: {
        withdrawalId: data.withdrawalId,
        amount: pending.amount,
        hash: data.hash,
        blockHeight: data.blockHeight,
        rawTxReceipt: data.rawTxReceipt,
        at: data.now,
        ...posting(wallet, wallet.balance - pending.amount, wallet.held - pending.amount),
      },
    },
  ];
}

export function rejectWithdrawal({ data }: RejectWithdrawal, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  const pending = pendingWithdrawal(wallet, data.withdrawalId);
  if (!pending) return [];
  return [
    {
      type: 'WithdrawalRejected',
      data: {
        withdrawalId: data.withdrawalId,
        amount: pending.amount,
        reason: data.reason,
        hash: data.hash,
        at: data.now,
        ...posting(wallet, wallet.balance, wallet.held - pending.amount),
      },
    },
  ];
}
