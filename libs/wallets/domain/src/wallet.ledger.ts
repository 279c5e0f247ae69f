import { DomainError } from '@cip/shared/contracts';
import { hasRecentId } from './recent-ids';
import type {
  ChargeFee,
  CreditDeposit,
  PlaceHold,
  Refund,
  RefuseDeposit,
  ReleaseHold,
  SettleHold,
} from './wallet.commands';
import type { WalletEvent } from './wallet.events';
import { existing, notOnComplianceHold, posting, requirePositive, usdc } from './wallet.rules';
import { availableBalance, OpenHold, WalletRecord, WalletState } from './wallet.state';

// ---------------------------------------------------------------------------------------------------
// Ledger postings: deposits, card authorization holds (placed, released, settled), refunds, fees
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
  const available = availableBalance(wallet);
  const overdraft = data.amount > available;
  if (!data.force) {
    notOnComplianceHold(wallet, 'spending');
    if (data.amount > available + (data.overdraftAllowance ?? 0)) {
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

const openAuthorizationHold = (wallet: WalletRecord, holdId: string) =>
  openHold(wallet, holdId, 'authorization', 'Hold');

export function releaseHold({ data }: ReleaseHold, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  const hold = openAuthorizationHold(wallet, data.holdId);
  if (!hold) return [];
  return [
    {
      type: 'WalletHoldReleased',
      data: {
        holdId: data.holdId,
        amount: hold.amount,
        at: data.now,
        ...posting(wallet, wallet.balance, wallet.held - hold.amount),
      },
    },
  ];
}

export function settleHold({ data }: SettleHold, state: WalletState): WalletEvent[] {
  const wallet = existing(state);
  const hold = openAuthorizationHold(wallet, data.holdId);
  if (!hold) return [];
  requirePositive(data.amount);
  // Settlement above the hold is allowed (spec part 1, fact 4): the balance may go negative.
  return [
    {
      type: 'WalletHoldSettled',
      data: {
        holdId: data.holdId,
        heldAmount: hold.amount,
        amount: data.amount,
        at: data.now,
        ...posting(wallet, wallet.balance - data.amount, wallet.held - hold.amount),
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
        at: data.now,
        ...posting(wallet, wallet.balance - data.amount, wallet.held),
      },
    },
  ];
}
