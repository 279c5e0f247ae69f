import { Caller, Environment, FindPage, FindResult, isOwnedBy, ownedBy } from '@cip/shared/contracts';
import { forTenant } from '@cip/shared/read-store';
import type { TransactionListFilter, WalletListFilter } from '@cip/wallets/contract';
import {
  TRANSACTIONS_COLLECTION,
  TransactionRecord,
  WalletView,
  walletsProjection,
} from '@cip/wallets/read-models';
import { checksum as getAddress, validate as isAddress } from 'ox/Address';
import { walletIdOf, type WalletStreams } from './wallet-streams';

/** The reads of the API: wallets by id (folded from their stream) and lists from the read models. */
export class WalletQueries {
  /**
   * Per environment, the log position the wallets read model was last seen caught up with: while the log
   * has not moved past it, an address missing from the read model is nobody's without waiting again (the
   * watcher asks about every recipient of the token, most of them not deposit addresses).
   */
  private readonly caughtUpTo = new Map<Environment, number>();

  constructor(private readonly streams: WalletStreams) {}

  async getWallet(caller: Caller, walletId: string): Promise<WalletView> {
    return ownedBy(
      caller,
      await this.streams.view(this.streams.ports.eventStore(caller.environment), walletId),
      'Wallet',
      walletId,
    );
  }

  async findUserWallet(caller: Caller, userId: string): Promise<WalletView | null> {
    const wallet = await this.streams.view(
      this.streams.ports.eventStore(caller.environment),
      walletIdOf(userId),
    );
    return isOwnedBy(caller, wallet) ? wallet : null;
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
    const { walletId, userId, cardId, type, status } = filter;
    return forTenant(this.streams.ports.readStore, caller).find<TransactionRecord>(
      TRANSACTIONS_COLLECTION,
      {
        walletId: walletId || undefined,
        userId: userId || undefined,
        cardId: cardId || undefined,
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
      const head = await this.streams.ports.eventStore(environment).headPosition();
      if ((this.caughtUpTo.get(environment) ?? -1) >= head) return null;
      await this.streams.ports.catchUpWallets(environment);
      // The catch-up covered everything appended before it was asked, so at least up to `head`.
      this.caughtUpTo.set(environment, Math.max(this.caughtUpTo.get(environment) ?? -1, head));
      found = await find();
    }
    return found.items[0] ?? null;
  }
}
