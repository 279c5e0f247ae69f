import { DomainError, type Environment } from '@cip/shared/contracts';
import type { ReadStore } from '@cip/shared/read-store';
import type { DepositSink, ObservedDeposit, PayoutJournal, WatcherCheckpoint } from '@cip/wallets/chain';
import { minorFromBigInt } from '@cip/wallets/domain';
import type { WalletsService } from './wallets.service';

/**
 * The deposit watcher's sink in one environment: transfers to a deposit address become deposits on its
 * wallet, keyed `<transactionHash>:<logIndex>` so that a transfer delivered again (after a restart from an
 * older checkpoint, or twice in one scan) is credited once.
 */
export function walletDepositSink(
  wallets: WalletsService,
  environment: Environment,
  onRefused?: (deposit: ObservedDeposit, reason: string) => void,
): DepositSink {
  return {
    isDepositAddress: async (address) =>
      (await wallets.walletByDepositAddress(environment, address)) !== null,
    async credit(deposit: ObservedDeposit): Promise<void> {
      // A zero-value Transfer moves no money (address-poisoning spam sends them by the thousands): there is
      // nothing to credit, and refusing it would stop the watcher on every poll.
      if (deposit.amountMinor === 0n) return;
      const wallet = await wallets.walletByDepositAddress(environment, deposit.depositAddress);
      if (!wallet)
        throw new Error(
          `${deposit.depositAddress} is not a deposit address of the ${environment} environment`,
        );
      const context = {
        environment,
        distributorId: wallet.distributorId,
        correlationId: deposit.transactionHash,
      };
      const transfer = {
        depositId: `${deposit.transactionHash.toLowerCase()}:${deposit.logIndex}`,
        transactionHash: deposit.transactionHash,
        logIndex: deposit.logIndex,
        blockNumber: deposit.blockNumber,
        fromAddress: deposit.fromAddress,
      };
      try {
        await wallets.creditDeposit(context, wallet.id, {
          ...transfer,
          amount: minorFromBigInt(deposit.amountMinor),
          source: 'chain',
        });
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'amount_too_large')) throw error;
        // Beyond what the ledger holds: recorded once for operators (WalletDepositRefused, logged by the
        // watcher's caller), and the watcher moves on instead of failing every poll on this transfer.
        await wallets.refuseDeposit(context, wallet.id, {
          ...transfer,
          amountMinor: deposit.amountMinor.toString(),
          reason: 'amount_too_large',
        });
        onRefused?.(deposit, error.message);
      }
    },
  };
}

/**
 * The payout journal of one environment, kept as events on each withdrawal's wallet stream: an entry is
 * durable once `save` resolves, and `find` folds the stream, so it sees a save of a moment ago and
 * survives a restart. Only a pending withdrawal takes an entry matching its amount and destination.
 */
export function walletPayoutJournal(wallets: WalletsService, environment: Environment): PayoutJournal {
  return {
    find: (withdrawalId) => wallets.journaledPayout(environment, withdrawalId),
    save: (entry) => wallets.journalPayout(environment, entry),
  };
}

export const WATCHER_CHECKPOINTS = 'chain_watcher_checkpoints';

/**
 * The deposit watcher's position in one environment, kept in that environment's read store as a document
 * versioned by the block number, so a save never moves it backwards. It is position data like a consumer
 * offset: should a crash lose the last save, the watcher scans a few blocks again and the sink, keyed by
 * transfer, credits nothing twice.
 */
export function readStoreWatcherCheckpoint(readStore: ReadStore, name = 'usdc-deposits'): WatcherCheckpoint {
  return {
    async load() {
      const stored = await readStore.getVersioned(WATCHER_CHECKPOINTS, name);
      return stored ? stored.version : null;
    },
    async save(blockNumber) {
      const at = new Date().toISOString();
      await readStore.upsertMany(WATCHER_CHECKPOINTS, [
        { id: name, version: blockNumber, doc: { id: name, blockNumber, createdAt: at, updatedAt: at } },
      ]);
    },
  };
}
