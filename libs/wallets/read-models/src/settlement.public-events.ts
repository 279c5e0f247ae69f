import type { PublicEventDraft, PublicEventMapper, ReadDocument } from '@cip/shared/read-store';
import { SETTLEMENT_BATCH_CATEGORY, settlementBatchEvents, settlementNoticesOf } from '@cip/wallets/domain';

/**
 * Settlement batches -> public Events: once a batch's transfer is confirmed, one
 * `blockchainTransaction.confirmed` per wallet of the batch and type (spec part 6): `settlement` with what
 * the wallet's cardholder spent (clearings, force posts), `refund` with what came back, each naming the
 * batch's one transaction (hash and block). The batch itself is no entity a distributor reads: the Event's
 * body is its fields only.
 */
export const settlementPublicEvents: PublicEventMapper = {
  topic: SETTLEMENT_BATCH_CATEGORY,
  snapshot: {
    name: 'settlement-batches',
    collection: 'settlement_batches',
    topics: [SETTLEMENT_BATCH_CATEGORY],
    evolve: (): ReadDocument | null => null,
  },
  toPublicEvents(recorded): PublicEventDraft[] {
    const event = settlementBatchEvents.read(recorded);
    if (event.type !== 'SettlementBatchConfirmed') return [];
    const { transactionHash, blockNumber } = event.data;
    return event.data.wallets.flatMap((wallet) =>
      settlementNoticesOf(wallet).map(({ type, amount }) => ({
        eventName: 'blockchainTransaction.confirmed' as const,
        eventTargetId: wallet.walletId,
        userId: wallet.userId,
        idKey: `${wallet.walletId}:${type}`,
        fields: {
          userId: wallet.userId,
          walletId: wallet.walletId,
          type,
          amount,
          transactionHash,
          blockNumber,
        },
      })),
    );
  },
};
