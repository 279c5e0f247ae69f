import {
  Caller,
  DomainError,
  domainEventReader,
  Environment,
  FindPage,
  FindResult,
  notFound,
  ownedBy,
} from '@cip/shared/contracts';
import {
  CommandContext,
  EventStore,
  handleCommand,
  loadState,
  RecordedEvent,
  WrongExpectedRevisionError,
} from '@cip/shared/eventing';
import { forTenant, type ReadStore } from '@cip/shared/read-store';
import { Clock, deterministicUuid, newId } from '@cip/shared/runtime';
import type { DepositAddressDeriver, JournaledPayout, PayoutPort, SimulatedChain } from '@cip/wallets/chain';
import {
  availableBalance,
  isWallet,
  minorFromBigInt,
  WalletCommand,
  walletDecider,
  walletEvents,
  WalletRecord,
  WalletState,
} from '@cip/wallets/domain';
import {
  TRANSACTIONS_COLLECTION,
  TransactionRecord,
  transactionIdOf,
  WalletView,
  walletsProjection,
} from '@cip/wallets/read-models';
import { getAddress, isAddress } from 'viem';
import { AddressIndexAllocator } from './address-index-allocator';
import { PerWalletQueue, WalletStateCache } from './wallet-stream-cache';
import type {
  LedgerBalance,
  LedgerContext,
  PlaceHoldInput,
  TransactionListFilter,
  WalletLedger,
  WalletListFilter,
  WalletsApi,
  WalletSimulationApi,
  WithdrawalInput,
} from '@cip/wallets/contract';

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

/**
 * The wallets context: provisioning (one wallet and one deposit address per activated user), the ledger
 * (deposits, holds, settlements, refunds, fees, withdrawals), compliance holds, and the queries of the API.
 * Every change is a command on the wallet stream through `handleCommand`, with optimistic concurrency.
 */
export class WalletsService implements WalletsApi, WalletSimulationApi, WalletLedger {
  private readonly allocators = new Map<Environment, AddressIndexAllocator>();
  private readonly caches = new Map<EventStore, WalletStateCache>();
  private readonly viewCaches = new Map<EventStore, WalletStateCache<WalletView | null>>();
  private readonly queue = new PerWalletQueue();

  constructor(
    private readonly ports: WalletsPorts,
    private readonly clock: Clock,
  ) {}

  // -------------------------------------------------------------------------------------------------
  // Provisioning
  // -------------------------------------------------------------------------------------------------

  /**
   * Gives an activated user its wallet: allocates an address index, derives the deposit address and
   * creates the wallet. Safe to run again and concurrently (redelivered events, operator retries): the
   * wallet id is the user's, and creating an existing wallet changes nothing. A failure is recorded on the
   * wallet (`create_wallet_error`) instead of being thrown, unless even the recording fails.
   */
  async provisionWallet(
    environment: Environment,
    owner: { userId: string; distributorId: string; causationId?: string },
  ): Promise<WalletView> {
    const walletId = walletIdOf(owner.userId);
    const store = this.ports.eventStore(environment);
    const context = this.context({
      environment,
      distributorId: owner.distributorId,
      causationId: owner.causationId,
    });
    const current = await this.view(store, walletId);
    if (current?.status === 'active') return current;
    try {
      const chain = this.ports.chain(environment);
      const addressIndex = await this.allocator(environment).allocate(walletId, context);
      const depositAddress = chain.deriver.addressAt(addressIndex);
      await this.command(store, walletId, context, () => ({
        type: 'CreateWallet',
        data: {
          ...owner,
          walletId,
          depositAddress,
          addressIndex,
          chain: chain.deriver.chain,
          now: context.occurredAt,
        },
      }));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await this.command(store, walletId, context, () => ({
        type: 'RecordProvisioningFailure',
        data: {
          walletId,
          userId: owner.userId,
          distributorId: owner.distributorId,
          reason,
          now: context.occurredAt,
        },
      }));
    }
    return (await this.view(store, walletId)) as WalletView;
  }

  /** Operators: provisions again the wallet of a user whose provisioning failed. */
  async retryProvisioning(environment: Environment, userId: string): Promise<WalletView> {
    const view = await this.view(this.ports.eventStore(environment), walletIdOf(userId));
    if (!view) throw notFound('Wallet of user', userId);
    return this.provisionWallet(environment, {
      userId,
      distributorId: view.distributorId,
      causationId: 'operator',
    });
  }

  // -------------------------------------------------------------------------------------------------
  // Queries
  // -------------------------------------------------------------------------------------------------

  async getWallet(caller: Caller, walletId: string): Promise<WalletView> {
    return ownedBy(
      caller,
      await this.view(this.ports.eventStore(caller.environment), walletId),
      'Wallet',
      walletId,
    );
  }

  async listWallets(
    caller: Caller,
    filter: WalletListFilter,
    page: FindPage,
  ): Promise<FindResult<WalletView>> {
    await this.ports.settle(caller.environment);
    return forTenant(this.ports.readStore, caller).find<WalletView>(
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
    await this.ports.settle(caller.environment);
    const { walletId, userId, type, status } = filter;
    return forTenant(this.ports.readStore, caller).find<TransactionRecord>(
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
    await this.ports.settle(caller.environment);
    return forTenant(this.ports.readStore, caller).getOwned<TransactionRecord>(
      TRANSACTIONS_COLLECTION,
      transactionId,
      'Transaction',
    );
  }

  /** The active wallet whose deposit address is `address` (any case), or null. */
  async walletByDepositAddress(environment: Environment, address: string): Promise<WalletView | null> {
    if (!isAddress(address, { strict: false })) return null;
    const depositAddress = getAddress(address);
    const find = () =>
      this.ports.readStore(environment).find<WalletView>(walletsProjection.collection, {
        filter: { depositAddress },
        sort: { field: 'createdAt', direction: 'asc' },
        page: 0,
        limit: 1,
      });
    let found = await find();
    // A wallet created a moment ago may not be in the read model yet.
    if (found.items.length === 0) {
      await this.ports.settle(environment);
      found = await find();
    }
    return found.items[0] ?? null;
  }

  // -------------------------------------------------------------------------------------------------
  // Deposits and withdrawals
  // -------------------------------------------------------------------------------------------------

  /** Credits a transfer to a wallet, once per `depositId` (the watcher's and the simulation's entry point). */
  async creditDeposit(
    context: LedgerContext,
    walletId: string,
    deposit: Omit<Extract<WalletCommand, { type: 'CreditDeposit' }>['data'], 'now'>,
  ): Promise<LedgerBalance> {
    // Beyond the wallet's window of recent ids, a deposit already credited is found by its transaction.
    const alreadyRecorded = Boolean(
      await this.ports
        .readStore(context.environment)
        .get(TRANSACTIONS_COLLECTION, transactionIdOf(walletId, 'deposit', deposit.depositId)),
    );
    return this.ledger(context, walletId, (now) => ({
      type: 'CreditDeposit',
      data: { ...deposit, alreadyRecorded, now },
    }));
  }

  async simulateDeposit(caller: Caller, walletId: string, amount: number): Promise<TransactionRecord> {
    if (caller.environment !== 'sandbox')
      throw new DomainError('sandbox_only', 'Deposits can be simulated in the sandbox only');
    await this.getWallet(caller, walletId);
    const simulated = this.ports.simulatedChain;
    const transactionHash = simulated.transactionHash('deposit', newId('sim'));
    const depositId = `${transactionHash}:0`;
    await this.creditDeposit(this.callerContext(caller), walletId, {
      depositId,
      amount,
      transactionHash,
      logIndex: 0,
      blockNumber: simulated.mine(),
      fromAddress: null,
      source: 'simulation',
    });
    return this.getTransaction(caller, transactionIdOf(walletId, 'deposit', depositId));
  }

  async requestWithdrawal(
    caller: Caller,
    walletId: string,
    input: WithdrawalInput,
  ): Promise<TransactionRecord> {
    if (!caller.program.prepaid) {
      throw new DomainError('forbidden', 'Withdrawals are available to prepaid programs only');
    }
    if (!isAddress(input.toAddress)) {
      throw new DomainError(
        'validation_error',
        'toAddress must be an EVM address (0x and 40 hex digits, valid checksum)',
        [{ field: 'toAddress', message: 'must be an EVM address' }],
      );
    }
    const withdrawalId = newId('txn');
    const toAddress = getAddress(input.toAddress);
    await this.ledger(this.callerContext(caller), walletId, (now) => ({
      type: 'RequestWithdrawal',
      data: { withdrawalId, amount: input.amount, toAddress, now },
    }));
    return this.getTransaction(caller, withdrawalId);
  }

  /**
   * The withdrawal saga's step: pays out a requested withdrawal and records the outcome. Run again after
   * a crash it first checks that the withdrawal is still pending, and the payout port sends at most once
   * per withdrawal id, so a withdrawal is never paid twice. It throws when the payout could not be
   * settled (node unreachable, receipt not in time): the withdrawal stays pending and is tried again.
   */
  async executeWithdrawal(environment: Environment, requested: RecordedEvent): Promise<void> {
    const event = walletEvents.read(requested);
    if (event.type !== 'WithdrawalRequested') throw new Error(`${event.type} is not a withdrawal request`);
    const { walletId, withdrawalId, amount, toAddress } = event.data;
    const context: LedgerContext = {
      environment,
      distributorId: requested.metadata.distributorId ?? '',
      correlationId: requested.metadata.correlationId,
      causationId: requested.metadata.eventId,
    };
    const { state } = await loadState(this.ports.eventStore(environment), walletDecider, walletId);
    if (!isWallet(state) || state.holds.get(withdrawalId)?.kind !== 'withdrawal') return;
    const result = await this.ports
      .chain(environment)
      .payout.send({ withdrawalId, toAddress, amountMinor: BigInt(amount) });
    await this.ledger(context, walletId, (now) =>
      result.status === 'confirmed'
        ? {
            type: 'ConfirmWithdrawal',
            data: {
              withdrawalId,
              hash: result.hash,
              blockHeight: result.blockHeight,
              rawTxReceipt: result.rawTxReceipt,
              now,
            },
          }
        : { type: 'RejectWithdrawal', data: { withdrawalId, reason: result.reason, hash: result.hash, now } },
    );
  }

  /**
   * The `WithdrawalRequested` events of the withdrawals the transactions read model shows pending (the
   * payouts to resume on start); the caller makes sure the read model is caught up.
   */
  async pendingWithdrawalRequests(environment: Environment): Promise<RecordedEvent[]> {
    const readStore = this.ports.readStore(environment);
    const pending: TransactionRecord[] = [];
    for (let page = 0; ; page++) {
      const result = await readStore.find<TransactionRecord>(TRANSACTIONS_COLLECTION, {
        filter: { type: 'withdrawal', status: 'pending' },
        sort: { field: 'createdAt', direction: 'asc' },
        page,
        limit: 1000,
      });
      pending.push(...result.items);
      if (!result.hasMore) break;
    }
    const withdrawalIds = new Set(pending.map((record) => record.id));
    const requests: RecordedEvent[] = [];
    for (const walletId of new Set(pending.map((record) => record.walletId))) {
      const events = await this.ports.eventStore(environment).readStream(walletId);
      requests.push(
        ...events.filter(
          (event) =>
            event.type === 'WithdrawalRequested' &&
            withdrawalIds.has((event.data as { withdrawalId: string }).withdrawalId),
        ),
      );
    }
    return requests;
  }

  /**
   * The payout journaled for a pending withdrawal, folded from its wallet's stream (so it includes what
   * was saved a moment ago), or null when none was signed or the withdrawal is no longer pending.
   */
  async journaledPayout(environment: Environment, withdrawalId: string): Promise<JournaledPayout | null> {
    const record = await this.withdrawalRecord(environment, withdrawalId);
    if (!record) return null;
    const { state } = await loadState(this.ports.eventStore(environment), walletDecider, record.walletId);
    const pending = isWallet(state) ? state.holds.get(withdrawalId) : undefined;
    if (pending?.kind !== 'withdrawal' || !pending.payout) return null;
    const { hash, rawTransaction, refusedReason } = pending.payout;
    return {
      withdrawalId,
      toAddress: pending.toAddress,
      amountMinor: BigInt(pending.amount),
      hash,
      rawTransaction,
      ...(refusedReason !== null && { rejectedReason: refusedReason }),
    };
  }

  /**
   * Journals the signed payout of a pending withdrawal on its wallet's stream (insert or replace); it
   * resolves once the event is appended, so the payout may then be broadcast.
   */
  async journalPayout(environment: Environment, entry: JournaledPayout): Promise<void> {
    const record = await this.withdrawalRecord(environment, entry.withdrawalId);
    if (!record) throw notFound('Withdrawal', entry.withdrawalId);
    await this.ledger(
      { environment, distributorId: record.distributorId, correlationId: entry.withdrawalId },
      record.walletId,
      (now) => ({
        type: 'JournalPayout',
        data: {
          withdrawalId: entry.withdrawalId,
          toAddress: entry.toAddress,
          amount: minorFromBigInt(entry.amountMinor),
          hash: entry.hash,
          rawTransaction: entry.rawTransaction,
          refusedReason: entry.rejectedReason ?? null,
          now,
        },
      }),
    );
  }

  // -------------------------------------------------------------------------------------------------
  // Ledger commands (card authorizations) and compliance holds (operators)
  // -------------------------------------------------------------------------------------------------

  placeHold(context: LedgerContext, walletId: string, input: PlaceHoldInput): Promise<LedgerBalance> {
    return this.ledger(context, walletId, (now) => ({ type: 'PlaceHold', data: { ...input, now } }));
  }

  releaseHold(context: LedgerContext, walletId: string, holdId: string): Promise<LedgerBalance> {
    return this.ledger(context, walletId, (now) => ({ type: 'ReleaseHold', data: { holdId, now } }));
  }

  settleHold(
    context: LedgerContext,
    walletId: string,
    holdId: string,
    amount: number,
  ): Promise<LedgerBalance> {
    return this.ledger(context, walletId, (now) => ({ type: 'SettleHold', data: { holdId, amount, now } }));
  }

  refund(
    context: LedgerContext,
    walletId: string,
    input: { refundId: string; amount: number; reference?: string },
  ): Promise<LedgerBalance> {
    return this.ledger(context, walletId, (now) => ({ type: 'Refund', data: { ...input, now } }));
  }

  chargeFee(
    context: LedgerContext,
    walletId: string,
    input: { feeId: string; amount: number; reference?: string },
  ): Promise<LedgerBalance> {
    return this.ledger(context, walletId, (now) => ({ type: 'ChargeFee', data: { ...input, now } }));
  }

  /** Operators: blocks spending and withdrawals on a wallet (or lifts the block). */
  async setComplianceHold(
    environment: Environment,
    walletId: string,
    on: boolean,
    reason: string,
  ): Promise<WalletView> {
    const store = this.ports.eventStore(environment);
    const view = await this.view(store, walletId);
    if (!view) throw notFound('Wallet', walletId);
    await this.ledger(
      { environment, distributorId: view.distributorId, correlationId: 'operator' },
      walletId,
      (now) =>
        on
          ? { type: 'PlaceComplianceHold', data: { reason, now } }
          : { type: 'ReleaseComplianceHold', data: { reason, now } },
    );
    return (await this.view(store, walletId)) as WalletView;
  }

  // -------------------------------------------------------------------------------------------------
  // Internals
  // -------------------------------------------------------------------------------------------------

  private async ledger(
    context: LedgerContext,
    walletId: string,
    build: (now: string) => WalletCommand,
  ): Promise<LedgerBalance> {
    const commandContext = this.context(context);
    const result = await this.command(
      this.ports.eventStore(context.environment),
      walletId,
      commandContext,
      (state) => {
        // Another tenant's wallet does not exist for the caller.
        if (state.status !== 'absent' && state.distributorId !== context.distributorId)
          throw notFound('Wallet', walletId);
        return build(commandContext.occurredAt);
      },
    );
    return ledgerOf(result as WalletRecord);
  }

  private async command(
    store: EventStore,
    walletId: string,
    context: CommandContext,
    build: (state: WalletState) => WalletCommand,
  ): Promise<WalletState> {
    let cache = this.caches.get(store);
    if (!cache) this.caches.set(store, (cache = new WalletStateCache()));
    const options = { maxAttempts: LEDGER_ATTEMPTS, cache };
    try {
      const result = await this.queue.run(`${store.name}/${walletId}`, () =>
        handleCommand(store, walletDecider, walletId, build, context, options),
      );
      return result.state;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        throw new DomainError('concurrency_conflict', `Wallet ${walletId} is too busy; retry the request`);
      }
      throw error;
    }
  }

  private context(
    context: Omit<LedgerContext, 'environment'> & { environment: Environment },
  ): CommandContext {
    return {
      occurredAt: this.clock.now().toISOString(),
      distributorId: context.distributorId,
      environment: context.environment,
      correlationId: context.correlationId ?? context.causationId,
      causationId: context.causationId ?? context.correlationId,
    };
  }

  private callerContext(caller: Caller): LedgerContext {
    return {
      environment: caller.environment,
      distributorId: caller.distributorId,
      correlationId: caller.requestId,
    };
  }

  private allocator(environment: Environment): AddressIndexAllocator {
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
  private async withdrawalRecord(
    environment: Environment,
    withdrawalId: string,
  ): Promise<TransactionRecord | null> {
    const get = () =>
      this.ports.readStore(environment).get<TransactionRecord>(TRANSACTIONS_COLLECTION, withdrawalId);
    let record = await get();
    if (!record) {
      await this.ports.settle(environment);
      record = await get();
    }
    return record?.type === 'withdrawal' ? record : null;
  }

  /** A wallet read by id: its stream folded into the view, so it always includes the caller's own writes. */
  /** The wallet as the API shows it, folded from its stream (read-your-writes), newest events only when cached. */
  private async view(store: EventStore, walletId: string): Promise<WalletView | null> {
    let cache = this.viewCaches.get(store);
    if (!cache) this.viewCaches.set(store, (cache = new WalletStateCache<WalletView | null>()));
    const { state, revision } = await loadState(
      store,
      {
        initialState: () => null,
        evolve: (doc: WalletView | null, event: RecordedEvent) => walletsProjection.evolve(doc, event),
        events: domainEventReader<RecordedEvent>(),
      },
      walletId,
      cache.get(walletId),
    );
    if (revision >= 0) cache.set(walletId, state, revision);
    return state;
  }
}
