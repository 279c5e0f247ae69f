import { Caller, Environment, FindPage, FindResult, ownedBy } from '@cip/shared/contracts';
import { forTenant } from '@cip/shared/read-store';
import type { TransactionListFilter, WalletListFilter } from '@cip/wallets/contract';
import {
  TRANSACTIONS_COLLECTION,
  TransactionRecord,
  WalletView,
  walletsProjection,
} from '@cip/wallets/read-models';
import { getAddress, isAddress } from 'viem';
import type { WalletStreams } from './wallet-streams';

/** The reads of the API: wallets by id (folded from their stream) and lists from the read models. */
export class WalletQueries {
  constructor(private readonly streams: WalletStreams) {}

  async getWallet(caller: Caller, walletId: string): Promise<WalletView> {
    return ownedBy(
      caller,
      await this.streams.view(this.streams.ports.eventStore(caller.environment), walletId),
      'Wallet',
      walletId,
    );
  }

  async listWallets(
    caller: Caller,
    filter: WalletListFilter,
    page: FindPage,
  ): Promise<FindResult<WalletView>> {
    await this.streams.ports.settle(caller.environment);
    return forTenant(this.streams.ports.readStore, caller).find<WalletView>(
      walletsProjection.collection,
      { userId: filter.userId || undefined },
      page,
    );
  }

  async listTransactions(
    caller: Caller,
    filter: TransactionListFilter,
    page: FindPage,
  ): Promise<FindResult<TransactionRecord>> {
    await this.streams.ports.settle(caller.environment);
    const { walletId, userId, type, status } = filter;
    return forTenant(this.streams.ports.readStore, caller).find<TransactionRecord>(
      TRANSACTIONS_COLLECTION,
      {
        walletId: walletId || undefined,
        userId: userId || undefined,
        type: type || undefined,
        status: status || undefined,
      },
      page,
    );
  }

  async getTransaction(caller: Caller, transactionId: string): Promise<TransactionRecord> {
    await this.streams.ports.settle(caller.environment);
    return forTenant(this.streams.ports.readStore, caller).getOwned<TransactionRecord>(
      TRANSACTIONS_COLLECTION,
      transactionId,
      'Transaction',
    );
  }

  /**
   * The active wallet whose deposit address is `address` (any case), or null. Null is answered only from a
   * read model known to hold every wallet created before the call: a transfer the watcher sees went to an
   * address handed out earlier, so a lagging read model must not make it look like nobody's (the transfer
   * would be skipped for good). When the read model cannot catch up in time, this rejects.
   */
  async walletByDepositAddress(environment: Environment, address: string): Promise<WalletView | null> {
    if (!isAddress(address, { strict: false })) return null;
    const depositAddress = getAddress(address);
    const find = () =>
      this.streams.ports.readStore(environment).find<WalletView>(walletsProjection.collection, {
        filter: { depositAddress },
        sort: { field: 'createdAt', direction: 'asc' },
        page: 0,
        limit: 1,
      });
    let found = await find();
    if (found.items.length === 0) {
      await this.streams.ports.catchUpWallets(environment);
      found = await find();
    }
    return found.items[0] ?? null;
  }
}
