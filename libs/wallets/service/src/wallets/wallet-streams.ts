import { Caller, DomainError, domainEventReader, Environment, ownedBy } from '@cip/shared/contracts';
import {
  CommandContext,
  EventStore,
  KeptStreamStates,
  RecordedEvent,
  WrongExpectedRevisionError,
} from '@cip/shared/eventing';
import type { ReadStore } from '@cip/shared/read-store';
import { Clock, deterministicUuid } from '@cip/shared/runtime';
import type { DepositAddressDeriver, PayoutPort, SimulatedChain } from '@cip/wallets/chain';
import type { LedgerBalance, LedgerContext, LedgerHold } from '@cip/wallets/contract';
import {
  availableBalance,
  walletDecider,
  WalletCommand,
  WalletRecord,
  WalletState,
} from '@cip/wallets/domain';
import {
  TRANSACTIONS_COLLECTION,
  TransactionRecord,
  WalletView,
  walletsProjection,
} from '@cip/wallets/read-models';
import { AddressIndexAllocator } from '../address-index-allocator';
import { WalletCommandBatches } from '../wallet-command-batches';

/** The chain adapters of one environment, chosen by the app. */
export interface WalletChain {
  deriver: DepositAddressDeriver;
  payout: PayoutPort;
}

export interface WalletsPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits until the wallets read models have caught up with the log (read-your-writes for lists). */
  settle(environment: Environment): Promise<void>;
  /**
   * Waits until the wallets read model holds every wallet created before the call, and rejects when it
   * cannot within its bound: unlike `settle`, which serves a late read model as is, the deposit watcher must
   * not take "no wallet has this address" from a read model that is behind (it retries instead).
   */
  catchUpWallets(environment: Environment): Promise<void>;
  chain(environment: Environment): WalletChain;
  /** The sandbox's simulated chain: hashes and block heights of simulated deposits. */
  simulatedChain: SimulatedChain;
}

/**
 * A hot wallet sees many concurrent commands (authorizations of several cards, deposits, withdrawals): each
 * conflict means another writer got there first, so a command keeps retrying on the fresh state rather
 * than failing a payment that would fit.
 */
const LEDGER_ATTEMPTS = 100;

/** One wallet per user: its id is derived from the user id, so every provisioning attempt targets it. */
export const walletIdOf = (userId: string): string => `wlt-${deterministicUuid('wallet', userId)}`;

const ledgerOf = (wallet: WalletRecord): LedgerBalance => ({
  walletId: wallet.walletId,
  balance: wallet.balance,
  held: wallet.held,
  available: availableBalance(wallet),
});

/** The figures of hold `holdId` after a command on it: null once it is closed. */
function holdOf(wallet: WalletRecord, holdId: string): LedgerHold | null {
  const hold = wallet.holds.get(holdId);
  if (hold?.kind !== 'authorization') return null;
  const { authorized, cleared, released, amount } = hold;
  return { holdId, authorized, cleared, released, held: amount };
}

/**
 * What every part of the wallets context works through: the stores, the per-wallet command path (the
 * commands of a wallet decided one after the other in this process and appended in batches, optimistic
 * concurrency across processes, cached folded states), the views folded from the streams, and the deposit-address allocators.
 */
export class WalletStreams {
  private readonly allocators = new Map<Environment, AddressIndexAllocator>();
  private readonly states = new KeptStreamStates(walletDecider);
  private readonly views = new KeptStreamStates<RecordedEvent, WalletView | null>({
    initialState: () => null,
    evolve: (doc, event) => walletsProjection.evolve(doc, event),
    events: domainEventReader<RecordedEvent>(),
  });
  private readonly batches = new WalletCommandBatches(LEDGER_ATTEMPTS);

  constructor(
    readonly ports: WalletsPorts,
    private readonly clock: Clock,
  ) {}

  /**
   * A ledger command on a wallet of the context's distributor (another tenant's wallet is not found);
   * with `holdId`, the answer carries that hold's figures.
   */
  async ledger(
    context: LedgerContext,
    walletId: string,
    build: (now: string) => WalletCommand,
    holdId?: string,
  ): Promise<LedgerBalance> {
    const commandContext = this.commandContext(context);
    const result = await this.command(
      this.ports.eventStore(context.environment),
      walletId,
      commandContext,
      (state) => {
        // Another tenant's wallet does not exist for the caller.
        if (state.status !== 'absent') ownedBy(context, state, 'Wallet', walletId);
        return build(commandContext.occurredAt);
      },
    );
    const wallet = result as WalletRecord;
    return holdId === undefined ? ledgerOf(wallet) : { ...ledgerOf(wallet), hold: holdOf(wallet, holdId) };
  }

  async command(
    store: EventStore,
    walletId: string,
    context: CommandContext,
    build: (state: WalletState) => WalletCommand,
  ): Promise<WalletState> {
    try {
      return await this.batches.run(store, walletId, this.states.of(store), context, build);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        throw new DomainError('concurrency_conflict', `Wallet ${walletId} is too busy; retry the request`);
      }
      throw error;
    }
  }

  commandContext(context: Omit<LedgerContext, 'environment'> & { environment: Environment }): CommandContext {
    return {
      occurredAt: this.clock.now().toISOString(),
      distributorId: context.distributorId,
      environment: context.environment,
      correlationId: context.correlationId ?? context.causationId,
      causationId: context.causationId ?? context.correlationId,
    };
  }

  callerContext(caller: Caller): LedgerContext {
    return {
      environment: caller.environment,
      distributorId: caller.distributorId,
      correlationId: caller.requestId,
    };
  }

  allocator(environment: Environment): AddressIndexAllocator {
    let allocator = this.allocators.get(environment);
    if (!allocator) {
      allocator = new AddressIndexAllocator(this.ports.eventStore(environment));
      this.allocators.set(environment, allocator);
    }
    return allocator;
  }

  /**
   * The transaction record of a withdrawal, for its wallet and owner (fields that never change), waiting
   * for the read model when the withdrawal is newer than it.
   */
  async withdrawalRecord(environment: Environment, withdrawalId: string): Promise<TransactionRecord | null> {
    const get = () =>
      this.ports.readStore(environment).get<TransactionRecord>(TRANSACTIONS_COLLECTION, withdrawalId);
    let record = await get();
    if (!record) {
      await this.ports.settle(environment);
      record = await get();
    }
    return record?.type === 'withdrawal' ? record : null;
  }

  /** The wallet as the API shows it, folded from its stream (read-your-writes), newest events only when cached. */
  async view(store: EventStore, walletId: string): Promise<WalletView | null> {
    return (await this.views.load(store, walletId)).state;
  }
}
