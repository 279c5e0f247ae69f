import { RebuildableReadModel, replayLog } from '@cip/shared/infrastructure';
import { WALLETS_TOPIC } from '@cip/wallets/contract';
import {
  recordWalletTransactions,
  TRANSACTIONS_COLLECTION,
  WALLET_TRANSACTIONS_GROUP,
} from '@cip/wallets/read-models';

/** The wallet movements behind GET /v1/transactions, kept by one consumer group and rebuildable from the log. */
export const walletTransactionsReadModel: RebuildableReadModel = {
  name: 'wallet-transactions',
  group: WALLET_TRANSACTIONS_GROUP,
  topics: [WALLETS_TOPIC],
  collections: [TRANSACTIONS_COLLECTION],
  apply: (readStore, events) => recordWalletTransactions(readStore, events),
  replay: (eventStore, readStore, target) =>
    replayLog(eventStore, walletTransactionsReadModel.topics, (events) =>
      recordWalletTransactions(readStore, events, target(TRANSACTIONS_COLLECTION)),
    ),
};
