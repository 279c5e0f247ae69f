import { DomainError, type Decider } from '@cip/shared/contracts';
import type { WalletEvent } from '../wallet.events';
import type { PlannedSettlementBatch } from './settlement.events';
import type { SettlementItem } from './settlement.ledger';
import {
  SettlementBatchEvent,
  settlementBatchEvents,
  SettlementBatchOpened,
  SettlementWalletTotals,
} from './settlement.events';

// ---------------------------------------------------------------------------------------------------
// One settlement batch (`stb-<uuid>`): opened with its content, its transfer journaled before broadcast,
// then confirmed or failed, once.
// ---------------------------------------------------------------------------------------------------

/** The signed transfer journaled for an open batch. */
export interface SignedSettlementTransfer {
  hash: string;
  rawTransaction: string;
  refusedReason: string | null;
}

export type SettlementBatchState =
  | { status: 'absent' }
  | (Omit<SettlementBatchOpened['data'], 'at'> & {
      status: 'open' | 'confirmed' | 'failed';
      transfer: SignedSettlementTransfer | null;
      transactionHash: string | null;
      blockNumber: number | null;
      openedAt: string;
    });

export type OpenBatch = {
  type: 'OpenSettlementBatch';
  data: PlannedSettlementBatch & { batchId: string; now: string };
};
export type JournalSettlementTransfer = {
  type: 'JournalSettlementTransfer';
  data: {
    batchId: string;
    toAddress: string;
    amount: number;
    hash: string;
    rawTransaction: string;
    refusedReason: string | null;
    now: string;
  };
};
export type ConfirmSettlementBatch = {
  type: 'ConfirmSettlementBatch';
  data: { batchId: string; transactionHash: string; blockNumber: number; now: string };
};
export type FailSettlementBatch = {
  type: 'FailSettlementBatch';
  data: { batchId: string; reason: string; transactionHash: string | null; now: string };
};

export type SettlementBatchCommand =
  OpenBatch | JournalSettlementTransfer | ConfirmSettlementBatch | FailSettlementBatch;

function openBatch({ data }: OpenBatch, state: SettlementBatchState): SettlementBatchEvent[] {
  if (state.status !== 'absent') return [];
  const { now, ...content } = data;
  return [{ type: 'SettlementBatchOpened', data: { ...content, at: now } }];
}

function journalTransfer(
  { data }: JournalSettlementTransfer,
  state: SettlementBatchState,
): SettlementBatchEvent[] {
  if (state.status !== 'open')
    throw new DomainError('invalid_state_transition', `Settlement batch ${data.batchId} is not open`);
  if (state.amount !== data.amount || state.settlementAddress.toLowerCase() !== data.toAddress.toLowerCase())
    throw new DomainError(
      'validation_error',
      `The transfer of settlement batch ${data.batchId} must send its amount to its settlement address`,
    );
  const events: SettlementBatchEvent[] = [];
  if (state.transfer?.hash !== data.hash || state.transfer.rawTransaction !== data.rawTransaction)
    events.push({
      type: 'SettlementTransferSigned',
      data: {
        batchId: data.batchId,
        toAddress: data.toAddress,
        amount: data.amount,
        hash: data.hash,
        rawTransaction: data.rawTransaction,
        at: data.now,
      },
    });
  if (data.refusedReason !== null)
    events.push({
      type: 'SettlementTransferRefused',
      data: { batchId: data.batchId, hash: data.hash, reason: data.refusedReason, at: data.now },
    });
  return events;
}

function confirmBatch({ data }: ConfirmSettlementBatch, state: SettlementBatchState): SettlementBatchEvent[] {
  if (state.status !== 'open') return [];
  return [
    {
      type: 'SettlementBatchConfirmed',
      data: {
        batchId: data.batchId,
        amount: state.amount,
        transactionHash: data.transactionHash,
        blockNumber: data.blockNumber,
        wallets: state.wallets,
        at: data.now,
      },
    },
  ];
}

function failBatch({ data }: FailSettlementBatch, state: SettlementBatchState): SettlementBatchEvent[] {
  if (state.status !== 'open') return [];
  const { now, ...failed } = data;
  return [{ type: 'SettlementBatchFailed', data: { ...failed, at: now } }];
}

function evolveBatch(state: SettlementBatchState, event: SettlementBatchEvent): SettlementBatchState {
  if (event.type === 'SettlementBatchOpened') {
    const { at, ...content } = event.data;
    return {
      ...content,
      status: 'open',
      transfer: null,
      transactionHash: null,
      blockNumber: null,
      openedAt: at,
    };
  }
  if (state.status === 'absent') return state;
  switch (event.type) {
    case 'SettlementTransferSigned':
      return {
        ...state,
        transfer: { hash: event.data.hash, rawTransaction: event.data.rawTransaction, refusedReason: null },
      };
    case 'SettlementTransferRefused':
      return state.transfer
        ? { ...state, transfer: { ...state.transfer, refusedReason: event.data.reason } }
        : state;
    case 'SettlementBatchConfirmed':
      return {
        ...state,
        status: 'confirmed',
        transactionHash: event.data.transactionHash,
        blockNumber: event.data.blockNumber,
      };
    case 'SettlementBatchFailed':
      return { ...state, status: 'failed', transactionHash: event.data.transactionHash };
    default: {
      const unknown: never = event;
      throw new Error(`Unknown settlement batch event ${(unknown as { type: string }).type}`);
    }
  }
}

export const settlementBatchDecider: Decider<
  SettlementBatchCommand,
  SettlementBatchEvent,
  SettlementBatchState
> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveBatch,
  decide(command, state) {
    switch (command.type) {
      case 'OpenSettlementBatch':
        return openBatch(command, state);
      case 'JournalSettlementTransfer':
        return journalTransfer(command, state);
      case 'ConfirmSettlementBatch':
        return confirmBatch(command, state);
      case 'FailSettlementBatch':
        return failBatch(command, state);
      default: {
        const unknown: never = command;
        throw new Error(`Unknown settlement batch command ${(unknown as { type: string }).type}`);
      }
    }
  },
  events: settlementBatchEvents,
};

/**
 * The settlement item a wallet event is, if any: a clearing of a hold or a force post (the cardholder's
 * money leaves for the card network) or a refund (it comes back). Releases, expiries, deposits and
 * withdrawals move nothing between the cardholder and the network; fees are the program's revenue and stay
 * in custody (README "Settlement").
 */
export function settlementItemOf(
  event: WalletEvent,
  at: { position: number; distributorId: string },
): SettlementItem | null {
  switch (event.type) {
    case 'WalletHoldSettled':
    case 'WalletForcePosted':
    case 'WalletRefunded':
      return {
        ...at,
        walletId: event.data.walletId,
        userId: event.data.userId,
        kind: event.type === 'WalletRefunded' ? 'refund' : 'settlement',
        amount: event.data.amount,
      };
    default:
      return null;
  }
}

/** The public `blockchainTransaction.confirmed` types a wallet's part of a confirmed batch gives rise to. */
export const settlementNoticesOf = (
  wallet: SettlementWalletTotals,
): { type: 'settlement' | 'refund'; amount: number }[] => [
  ...(wallet.settled > 0 ? [{ type: 'settlement' as const, amount: wallet.settled }] : []),
  ...(wallet.refunded > 0 ? [{ type: 'refund' as const, amount: wallet.refunded }] : []),
];
