import { ConsumerDefinition, RebuildableReadModel, replayLog } from '@cip/shared/infrastructure';
import {
  recordWalletTransactions,
  TRANSACTIONS_COLLECTION,
  WALLET_TRANSACTIONS_GROUP,
} from '@cip/wallets/read-models';

/** The wallet movements behind GET /v1/transactions, kept by one consumer group and rebuildable from the log. */
export const walletTransactionsReadModel: RebuildableReadModel = {
  name: 'wallet-transactions',
  group: WALLET_TRANSACTIONS_GROUP,
  topics: ['wlt'],
  collections: [TRANSACTIONS_COLLECTION],
  replay: (eventStore, readStore, target) =>
    replayLog(eventStore, walletTransactionsReadModel.topics, (events) =>
      recordWalletTransactions(readStore, events, target(TRANSACTIONS_COLLECTION)),
    ),
};

/** The consumer group that keeps the transactions read model current. */
export const walletTransactionsConsumer: ConsumerDefinition = {
  group: walletTransactionsReadModel.group,
  topics: walletTransactionsReadModel.topics,
  handle: (ports, messages) =>
    recordWalletTransactions(
      ports.readStore,
      messages.map((m) => m.event),
    ),
};
