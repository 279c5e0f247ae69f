import { deterministicUuid } from '@cip/shared/runtime';
import type { ProjectedEvent, ReadDocument, ReadStore, VersionedWrite } from '@cip/shared/read-store';
import {
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  renderTransaction,
  type TransactionFields,
  type TransactionRecord,
  type TransactionStatus,
  type TransactionType,
} from '@cip/wallets/contract';
import { fromMinorUnits, USDC, WalletEvent, walletEvents } from '@cip/wallets/domain';

export { TRANSACTION_STATUSES, TRANSACTION_TYPES, renderTransaction };
export type { TransactionFields, TransactionRecord, TransactionStatus, TransactionType };

// ---------------------------------------------------------------------------------------------------
// The `transactions` read model (GET /v1/transactions): one document per money movement of a wallet,
// several per wallet stream, so it is not a one-document-per-stream projection. Each document is written
// with the global position of the event as its version: a redelivered or replayed event changes nothing,
// and a later event (a hold settled) moves the document on. Card authorizations will add their own
// documents to the same collection, with the same owner fields, so one list shows both.
// ---------------------------------------------------------------------------------------------------

export const TRANSACTIONS_COLLECTION = 'transactions';
export const WALLET_TRANSACTIONS_GROUP = 'wallet-transactions';

/** The transaction id of a movement posted on a wallet under `reference` (withdrawals use their own id). */
export const transactionIdOf = (walletId: string, type: TransactionType, reference: string): string =>
  `txn-${deterministicUuid(walletId, type, reference)}`;

type Change =
  | { kind: 'new'; id: string; doc: TransactionFields }
  | { kind: 'update'; id: string; changes: Partial<TransactionFields> };

const movement = (
  event: { data: { walletId: string; userId: string } },
  type: TransactionType,
  amount: number,
  fields: Partial<TransactionFields> = {},
): TransactionFields => ({
  walletId: event.data.walletId,
  userId: event.data.userId,
  type,
  status: 'completed',
  amount: fromMinorUnits(amount),
  currency: USDC,
  reference: null,
  cardId: null,
  transactionHash: null,
  blockNumber: null,
  toAddress: null,
  reason: null,
  ...fields,
});

function changeOf(event: WalletEvent): Change | null {
  switch (event.type) {
    case 'WalletDepositCredited': {
      const { data } = event;
      return {
        kind: 'new',
        id: transactionIdOf(data.walletId, 'deposit', data.depositId),
        doc: movement(event, 'deposit', data.amount, {
          reference: data.depositId,
          transactionHash: data.transactionHash,
          blockNumber: data.blockNumber,
        }),
      };
    }
    case 'WalletHoldPlaced':
      return {
        kind: 'new',
        id: transactionIdOf(event.data.walletId, 'authorization', event.data.holdId),
        doc: movement(event, 'authorization', event.data.amount, {
          status: 'pending',
          reference: event.data.holdId,
          cardId: event.data.cardId ?? null,
        }),
      };
    // A partial reversal leaves the authorization pending; closing it leaves it released, or completed for
    // the sum of its clearings when it had any (a partly cleared hold that expired or was reversed).
    case 'WalletHoldReleased': {
      const { data } = event;
      if ((data.remaining ?? 0) > 0) return null;
      return {
        kind: 'update',
        id: transactionIdOf(data.walletId, 'authorization', data.holdId),
        changes: data.cleared
          ? { status: 'completed', amount: fromMinorUnits(data.cleared) }
          : { status: 'released' },
      };
    }
    // The amount shown is the sum of the clearings so far; the authorization completes with the final one.
    case 'WalletHoldSettled': {
      const { data } = event;
      return {
        kind: 'update',
        id: transactionIdOf(data.walletId, 'authorization', data.holdId),
        changes: {
          status: data.final === false ? 'pending' : 'completed',
          amount: fromMinorUnits(data.cleared ?? data.amount),
        },
      };
    }
    // A clearing without an authorization: a card payment, completed at once.
    case 'WalletForcePosted':
      return {
        kind: 'new',
        id: transactionIdOf(event.data.walletId, 'authorization', event.data.postingId),
        doc: movement(event, 'authorization', event.data.amount, {
          reference: event.data.reference ?? event.data.postingId,
          cardId: event.data.cardId ?? null,
        }),
      };
    case 'WalletRefunded':
      return {
        kind: 'new',
        id: transactionIdOf(event.data.walletId, 'refund', event.data.refundId),
        doc: movement(event, 'refund', event.data.amount, {
          reference: event.data.reference ?? event.data.refundId,
          cardId: event.data.cardId ?? null,
        }),
      };
    case 'WalletFeeCharged':
      return {
        kind: 'new',
        id: transactionIdOf(event.data.walletId, 'fee', event.data.feeId),
        doc: movement(event, 'fee', event.data.amount, {
          reference: event.data.reference ?? event.data.feeId,
          cardId: event.data.cardId ?? null,
        }),
      };
    case 'WithdrawalRequested':
      return {
        kind: 'new',
        id: event.data.withdrawalId,
        doc: movement(event, 'withdrawal', event.data.amount, {
          status: 'pending',
          toAddress: event.data.toAddress,
        }),
      };
    // The pending withdrawal shows the hash of its signed payout (never the raw transaction).
    case 'WithdrawalPayoutSigned':
      return { kind: 'update', id: event.data.withdrawalId, changes: { transactionHash: event.data.hash } };
    case 'WithdrawalConfirmed':
      return {
        kind: 'update',
        id: event.data.withdrawalId,
        changes: {
          status: 'completed',
          transactionHash: event.data.hash,
          blockNumber: event.data.blockHeight,
        },
      };
    case 'WithdrawalRejected':
      return {
        kind: 'update',
        id: event.data.withdrawalId,
        changes: { status: 'rejected', transactionHash: event.data.hash, reason: event.data.reason },
      };
    default:
      return null;
  }
}

/** Writes the transaction documents of a batch of wallet events (idempotent; see the banner above). */
export async function recordWalletTransactions(
  readStore: ReadStore,
  events: ProjectedEvent[],
  collection = TRANSACTIONS_COLLECTION,
): Promise<void> {
  const pending = new Map<string, VersionedWrite<TransactionRecord>>();
  for (const recorded of events) {
    const change = changeOf(walletEvents.read(recorded));
    if (!change) continue;
    const at = recorded.metadata.occurredAt;
    if (change.kind === 'new') {
      const doc = {
        ...change.doc,
        id: change.id,
        distributorId: recorded.metadata.distributorId ?? '',
        createdAt: at,
        updatedAt: at,
      };
      const positions = { created: recorded.position, updated: recorded.position };
      pending.set(change.id, { id: change.id, doc, version: recorded.position, positions });
      continue;
    }
    const current =
      pending.get(change.id) ?? (await readStore.getVersioned<TransactionRecord>(collection, change.id));
    // Already past this event (a redelivery), or the movement it updates is unknown: nothing to do.
    if (!current?.doc || current.version >= recorded.position) continue;
    pending.set(change.id, {
      id: change.id,
      doc: { ...current.doc, ...change.changes, updatedAt: at },
      version: recorded.position,
      positions: { created: current.positions?.created ?? 0, updated: recorded.position },
    });
  }
  if (pending.size)
    await readStore.upsertMany(collection, [...pending.values()] as VersionedWrite<ReadDocument>[]);
}
