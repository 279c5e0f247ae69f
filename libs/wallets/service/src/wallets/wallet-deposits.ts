import { Caller, DomainError } from '@cip/shared/contracts';
import { newId } from '@cip/shared/runtime';
import type { LedgerBalance, LedgerContext } from '@cip/wallets/contract';
import type { WalletCommand } from '@cip/wallets/domain';
import { TRANSACTIONS_COLLECTION, TransactionRecord, transactionIdOf } from '@cip/wallets/read-models';
import type { WalletQueries } from './wallet-queries';
import type { WalletStreams } from './wallet-streams';

/** Deposits: credited once per chain log (the watcher) or simulated in the sandbox. */
export class WalletDeposits {
  constructor(
    private readonly streams: WalletStreams,
    private readonly queries: WalletQueries,
  ) {}

  /** Credits a transfer to a wallet, once per `depositId` (the watcher's and the simulation's entry point). */
  async creditDeposit(
    context: LedgerContext,
    walletId: string,
    deposit: Omit<Extract<WalletCommand, { type: 'CreditDeposit' }>['data'], 'now'>,
  ): Promise<LedgerBalance> {
    // Beyond the wallet's window of recent ids, a deposit already credited is found by its transaction.
    const alreadyRecorded = Boolean(
      await this.streams.ports
        .readStore(context.environment)
        .get(TRANSACTIONS_COLLECTION, transactionIdOf(walletId, 'deposit', deposit.depositId)),
    );
    return this.streams.ledger(context, walletId, (now) => ({
      type: 'CreditDeposit',
      data: { ...deposit, alreadyRecorded, now },
    }));
  }

  /** Records, once, a confirmed transfer the ledger cannot take (the watcher's way past it). */
  async refuseDeposit(
    context: LedgerContext,
    walletId: string,
    deposit: Omit<Extract<WalletCommand, { type: 'RefuseDeposit' }>['data'], 'now'>,
  ): Promise<void> {
    await this.streams.ledger(context, walletId, (now) => ({
      type: 'RefuseDeposit',
      data: { ...deposit, now },
    }));
  }

  async simulateDeposit(caller: Caller, walletId: string, amount: number): Promise<TransactionRecord> {
    if (caller.environment !== 'sandbox')
      throw new DomainError('sandbox_only', 'Deposits can be simulated in the sandbox only');
    await this.queries.getWallet(caller, walletId);
    const simulated = this.streams.ports.simulatedChain;
    const transactionHash = simulated.transactionHash('deposit', newId('sim'));
    const depositId = `${transactionHash}:0`;
    await this.creditDeposit(this.streams.callerContext(caller), walletId, {
      depositId,
      amount,
      transactionHash,
      logIndex: 0,
      blockNumber: simulated.mine(),
      fromAddress: null,
      source: 'simulation',
    });
    return this.queries.getTransaction(caller, transactionIdOf(walletId, 'deposit', depositId));
  }
}
