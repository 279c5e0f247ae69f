import { Decider, DomainError, domainEventReader } from '@cip/shared/contracts';
import { fromMinorUnits } from './money';
import { hasRecentId, NO_RECENT_IDS, RecentIds, withRecentId } from './recent-ids';
import type {
  ChargeFee,
  CreateWallet,
  CreditDeposit,
  JournalPayout,
  PlaceHold,
  RecordProvisioningFailure,
  Refund,
  ReleaseHold,
  RequestWithdrawal,
  SettleHold,
  WalletCommand,
} from './wallet.commands';
import type { HoldKind, LedgerFigures, WalletEvent } from './wallet.events';

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

export type OpenHold = { amount: number; kind: Exclude<HoldKind, 'withdrawal'> } | PendingWithdrawal;

export interface WalletRecord extends LedgerFigures {
  status: 'active';
  walletId: string;
  userId: string;
  distributorId: string;
  depositAddress: string;
  addressIndex: number;
  chain: string;
  currency: 'USDC';
  /** Open holds by id (authorizations and pending withdrawals). */
  holds: ReadonlyMap<string, OpenHold>;
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
// Decide
// ---------------------------------------------------------------------------------------------------

const usdc = (minor: number) => `${fromMinorUnits(minor)} USDC`;

function existing(state: WalletState): WalletRecord {
  if (state.status === 'absent') throw new DomainError('not_found', 'Wallet was not found');
  if (state.status === 'provisioning_failed') {
    throw new DomainError(
      'create_wallet_error',
      `Wallet ${state.walletId} could not be provisioned: ${state.reason}`,
    );
  }
  return state;
}

function notOnComplianceHold(wallet: WalletRecord, action: string): void {
  if (wallet.complianceHold) {
    throw new DomainError(
      'wallet_compliance_hold',
      `Wallet ${wallet.walletId} is under a compliance hold (${wallet.complianceHold.reason}): ${action} is blocked`,
    );
  }
}

function requirePositive(amount: number, field = 'amount'): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new DomainError('validation_error', `${field} must be a positive integer of minor units`, [
      { field, message: 'must be a positive integer of minor units' },
    ]);
  }
}

/** The owner and the ledger after a movement, as every money event carries them. */
const ledger = (wallet: WalletRecord, balance: number, held: number) => ({
  walletId: wallet.walletId,
  userId: wallet.userId,
  balance,
  held,
});

function createWallet({ data }: CreateWallet, state: WalletState): WalletEvent[] {
  if (isWallet(state)) return [];
  return [
    {
      type: 'WalletCreated',
      data: {
        walletId: data.walletId,
        userId: data.userId,
        distributorId: data.distributorId,
        depositAddress: data.depositAddress,
        addressIndex: data.addressIndex,
        chain: data.chain,
        currency: 'USDC',
        createdAt: data.now,
      },
    },
  ];
}

function recordProvisioningFailure({ data }: RecordProvisioningFailure, state: WalletState): WalletEvent[] {
  if (isWallet(state)) return [];
  return [
    {
      type: 'WalletProvisioningFailed',
      data: {
        walletId: data.walletId,
        userId: data.userId,
        distributorId: data.distributorId,
        reason: data.reason,
        at: data.now,
      },
    },
  ];
}

function creditDeposit({ data }: CreditDeposit, state: WalletState): WalletEvent[] {
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
        ...ledger(wallet, wallet.balance + data.amount, wallet.held),
      },
    },
  ];
}

function placeHold({ data }: PlaceHold, state: WalletState): WalletEvent[] {
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
        ...ledger(wallet, wallet.balance, wallet.held + data.amount),
      },
    },
  ];
}

/**
 * The open hold `id` of a kind; null when it was closed already (a retried command), not found when the
 * wallet never had it.
 */
function openHold<Kind extends OpenHold['kind']>(
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

function releaseHold({ data }: ReleaseHold, state: WalletState): WalletEvent[] {
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
        ...ledger(wallet, wallet.balance, wallet.held - hold.amount),
      },
    },
  ];
}

function settleHold({ data }: SettleHold, state: WalletState): WalletEvent[] {
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
        ...ledger(wallet, wallet.balance - data.amount, wallet.held - hold.amount),
      },
    },
  ];
}

function refund({ data }: Refund, state: WalletState): WalletEvent[] {
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
        ...ledger(wallet, wallet.balance + data.amount, wallet.held),
      },
    },
  ];
}

function chargeFee({ data }: ChargeFee, state: WalletState): WalletEvent[] {
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
        ...ledger(wallet, wallet.balance - data.amount, wallet.held),
      },
    },
  ];
}

function requestWithdrawal({ data }: RequestWithdrawal, state: WalletState): WalletEvent[] {
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
        ...ledger(wallet, wallet.balance, wallet.held + data.amount),
      },
    },
  ];
}

/** The pending withdrawal `withdrawalId`; null when it was resolved already (a retried payout). */
const pendingWithdrawal = (wallet: WalletRecord, withdrawalId: string): PendingWithdrawal | null =>
  openHold(wallet, withdrawalId, 'withdrawal', 'Withdrawal');

function journalPayout({ data }: JournalPayout, state: WalletState): WalletEvent[] {
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

export function decideWallet(command: WalletCommand, state: WalletState): WalletEvent[] {
  switch (command.type) {
    case 'CreateWallet':
      return createWallet(command, state);
    case 'RecordProvisioningFailure':
      return recordProvisioningFailure(command, state);
    case 'CreditDeposit':
      return creditDeposit(command, state);
    case 'PlaceHold':
      return placeHold(command, state);
    case 'ReleaseHold':
      return releaseHold(command, state);
    case 'SettleHold':
      return settleHold(command, state);
    case 'Refund':
      return refund(command, state);
    case 'ChargeFee':
      return chargeFee(command, state);
    case 'RequestWithdrawal':
      return requestWithdrawal(command, state);
    case 'ConfirmWithdrawal': {
      const wallet = existing(state);
      const { data } = command;
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
            ...ledger(wallet, wallet.balance - pending.amount, wallet.held - pending.amount),
          },
        },
      ];
    }
    case 'RejectWithdrawal': {
      const wallet = existing(state);
      const { data } = command;
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
            ...ledger(wallet, wallet.balance, wallet.held - pending.amount),
          },
        },
      ];
    }
    case 'JournalPayout':
      return journalPayout(command, state);
    case 'PlaceComplianceHold': {
      const wallet = existing(state);
      if (wallet.complianceHold) return [];
      return [
        {
          type: 'WalletComplianceHoldPlaced',
          data: { walletId: wallet.walletId, reason: command.data.reason, at: command.data.now },
        },
      ];
    }
    case 'ReleaseComplianceHold': {
      const wallet = existing(state);
      if (!wallet.complianceHold) return [];
      return [
        {
          type: 'WalletComplianceHoldReleased',
          data: { walletId: wallet.walletId, reason: command.data.reason, at: command.data.now },
        },
      ];
    }
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as WalletCommand).type}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

function withHolds(
  wallet: WalletRecord,
  change: (holds: Map<string, OpenHold>) => void,
): ReadonlyMap<string, OpenHold> {
  const holds = new Map(wallet.holds);
  change(holds);
  return holds;
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
      holds: new Map(),
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
      wallet.holds = withHolds(state, (holds) => holds.set(holdId, { amount, kind: 'authorization' }));
      break;
    }
    case 'WithdrawalRequested': {
      const { withdrawalId, amount, toAddress } = event.data;
      wallet.holds = withHolds(state, (holds) =>
        holds.set(withdrawalId, { amount, kind: 'withdrawal', toAddress, payout: null }),
      );
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
        holds: withHolds(state, (holds) => holds.set(withdrawalId, { ...pending, payout })),
      };
    }
    case 'WalletHoldReleased':
    case 'WalletHoldSettled':
      wallet.holds = withHolds(state, (holds) => holds.delete(event.data.holdId));
      wallet.usedIds = withRecentId(state.usedIds, event.data.holdId);
      break;
    case 'WithdrawalConfirmed':
    case 'WithdrawalRejected':
      wallet.holds = withHolds(state, (holds) => holds.delete(event.data.withdrawalId));
      wallet.usedIds = withRecentId(state.usedIds, event.data.withdrawalId);
      break;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
  return { ...wallet, balance: event.data.balance, held: event.data.held };
}

export const walletDecider: Decider<WalletCommand, WalletEvent, WalletState> = {
  decide: decideWallet,
  evolve: evolveWallet,
  initialState: () => ({ status: 'absent' }),
  events: domainEventReader<WalletEvent>(),
};
