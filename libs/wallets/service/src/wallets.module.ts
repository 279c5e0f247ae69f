import { PROGRAM_DIRECTORY, type ProgramDirectory } from '@cip/distributors/contract';
import { BeforeApplicationShutdown, Inject, Module, OnApplicationBootstrap } from '@nestjs/common';
import { Environment, ENVIRONMENTS } from '@cip/shared/contracts';
import {
  ConsumerHost,
  contractProviders,
  Infrastructure,
  INFRASTRUCTURE,
  LOGGER,
} from '@cip/shared/infrastructure';
import { CLOCK, Clock, Logger, METRICS, PlatformMetrics } from '@cip/shared/runtime';
import {
  DepositSink,
  DepositWatcher,
  PayoutJournal,
  SimulatedChain,
  WatcherCheckpoint,
} from '@cip/wallets/chain';
import { walletsProjection } from '@cip/wallets/read-models';
import { walletTransactionsReadModel } from './wallet-transactions.read-model';
import { walletProvisioningSaga } from './sagas/wallet-provisioning.saga';
import { readStoreWatcherCheckpoint, walletDepositSink, walletPayoutJournal } from './chain-bindings';
import {
  walletComplianceContract,
  walletLedgerContract,
  walletsContract,
  walletSimulationContract,
  withdrawalRequested,
} from '@cip/wallets/contract';
import { WalletChain, WalletsService } from './wallets.service';
import { PayoutMetrics, WithdrawalPayouts } from './withdrawal-payouts';
import { routedPayoutJournal, SettlementAddressOf, SettlementBatches } from './settlement/settlement-batches';
import { programSettlementAddresses } from './settlement/settlement-addresses';
import { SettlementMetrics, SettlementRunner } from './settlement/settlement-runner';

export const WITHDRAWAL_PAYOUT_GROUP = 'wallets.withdrawals';

export interface WalletsModuleOptions {
  /**
   * The deriver and payout adapter of an environment (sandbox: simulated chain; EVM adapters when
   * configured, an EVM payout journaling on `payoutJournal`).
   */
  chain(
    environment: Environment,
    bindings: { simulated: SimulatedChain; payoutJournal: PayoutJournal },
  ): WalletChain;
  /** A deposit watcher for an environment, or null for none (no chain endpoint configured). */
  watcher?(environment: Environment, sink: DepositSink, checkpoint: WatcherCheckpoint): DepositWatcher | null;
  /**
   * Settlement of card payments (README "Settlement"): each program's settlement address, and how often
   * batches are cut (0 or absent: on demand only). Without it no program has an address: items wait.
   */
  settlement?: { settlementAddressOf: SettlementAddressOf; intervalMs: number };
}

/** The wallets service and the settlement batches, built together: they share the chain adapters. */
class WalletsParts {
  constructor(
    readonly wallets: WalletsService,
    readonly settlement: SettlementBatches,
  ) {}
}

/** The wallets context's APIs, by audience (the ledger is for card authorizations). */
export const WALLETS_CONTRACTS = [
  walletsContract,
  walletSimulationContract,
  walletLedgerContract,
  walletComplianceContract,
];

/** Where the app provides the wallets context's chain adapters (only apps choose adapters). */
export const WALLETS_OPTIONS = Symbol('WALLETS_OPTIONS');
/** How often payout retries that came due on the clock are looked for (real time). */
const PAYOUT_RETRY_TICK_MS = 250;
/** How long resuming waits at a time for the transactions read model to catch up with the log. */
const RESUME_CATCH_UP_MS = 10_000;
/** How long a deposit poll waits for the wallets read model before it fails (and the next poll retries). */
const WALLETS_CATCH_UP_MS = 10_000;

/** Resumes the pending withdrawals and runs the payout retry tick; lets running payouts finish on shutdown. */
export class PayoutRunnerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly payouts: WithdrawalPayouts) {}

  onApplicationBootstrap(): void {
    for (const environment of ENVIRONMENTS) this.payouts.resume(environment);
    this.timer = setInterval(() => this.payouts.runDue(), PAYOUT_RETRY_TICK_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.payouts.stop();
  }
}

/** How often the settlement schedule and the open batches are looked at (real time; runs follow the clock). */
const SETTLEMENT_TICK_MS = 1_000;

/** Runs the settlement schedule on a timer; lets a running batch finish on shutdown. */
export class SettlementRunnerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  constructor(private readonly runner: SettlementRunner) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.ticking ??= this.runner.tick().finally(() => (this.ticking = null));
    }, SETTLEMENT_TICK_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.runner.stop();
  }
}

/** Starts the configured deposit watchers with the application and stops them before the stores close. */
export class DepositWatchers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private running = new Map<Environment, DepositWatcher>();

  constructor(
    private readonly options: WalletsModuleOptions,
    private readonly wallets: WalletsService,
    private readonly infrastructure: Infrastructure,
    private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const environment of ENVIRONMENTS) {
      const watcher = this.options.watcher?.(
        environment,
        walletDepositSink(this.wallets, environment, (deposit, reason) =>
          this.logger.error(
            {
              environment,
              depositAddress: deposit.depositAddress,
              transactionHash: deposit.transactionHash,
              reason,
            },
            'confirmed deposit refused by the ledger (WalletDepositRefused): settle it off the ledger',
          ),
        ),
        readStoreWatcherCheckpoint(this.infrastructure.scope(environment).readStore),
      );
      if (!watcher) continue;
      await watcher.start();
      this.running.set(environment, watcher);
    }
  }

  /** Scans the environment's chain up to its head now (tests and benches wait on this, not on the poll timer). */
  async pollOnce(environment: Environment): Promise<void> {
    await this.running.get(environment)?.pollOnce();
  }

  async beforeApplicationShutdown(): Promise<void> {
    const running = [...this.running.values()];
    this.running.clear();
    await Promise.all(running.map((watcher) => watcher.stop()));
  }
}

/**
 * The wallets context: command handlers, the `wallets` and `transactions` read models, the provisioning
 * saga (user activated -> wallet) and the withdrawal saga (requested -> payout runner -> confirmed or
 * rejected).
 */
@Module({
  providers: [
    {
      provide: WalletsParts,
      inject: [
        INFRASTRUCTURE,
        ConsumerHost,
        CLOCK,
        WALLETS_OPTIONS,
        { token: PROGRAM_DIRECTORY, optional: true },
      ],
      useFactory: (
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        options: WalletsModuleOptions,
        programs: ProgramDirectory | null,
      ) => {
        const simulatedChain = new SimulatedChain(clock);
        // Built once the service exists: the payout journal of each environment is kept by it.
        const chains = new Map<Environment, WalletChain>();
        const eventStore = (environment: Environment) => infrastructure.scope(environment).eventStore;
        const wallets = new WalletsService(
          {
            eventStore,
            readStore: (environment) => infrastructure.scope(environment).readStore,
            // A list read right after the user's activation must show the wallet the provisioning saga
            // creates for it: the saga catches up first, then the read models with what it appended.
            settle: (environment) =>
              consumers.settle(
                environment,
                [walletProvisioningSaga.group],
                [`projection.${walletsProjection.name}`, walletTransactionsReadModel.group],
              ),
            catchUpWallets: (environment) =>
              consumers.drain(environment, [`projection.${walletsProjection.name}`], WALLETS_CATCH_UP_MS),
            chain: (environment) => chains.get(environment) as WalletChain,
            simulatedChain,
          },
          clock,
        );
        // Settlement transfers go through the withdrawals' payout adapter: one signer per hot wallet.
        const settlement = new SettlementBatches(
          {
            eventStore,
            payout: (environment) => (chains.get(environment) as WalletChain).payout,
            settlementAddressOf: programSettlementAddresses(
              programs ?? null,
              options.settlement?.settlementAddressOf ?? (() => null),
            ),
          },
          clock,
        );
        for (const environment of ENVIRONMENTS)
          chains.set(
            environment,
            options.chain(environment, {
              simulated: simulatedChain,
              payoutJournal: routedPayoutJournal(
                walletPayoutJournal(wallets, environment),
                settlement.journal(environment),
              ),
            }),
          );
        return new WalletsParts(wallets, settlement);
      },
    },
    { provide: WalletsService, inject: [WalletsParts], useFactory: (parts: WalletsParts) => parts.wallets },
    {
      provide: SettlementBatches,
      inject: [WalletsParts],
      useFactory: (parts: WalletsParts) => parts.settlement,
    },
    {
      provide: SettlementRunner,
      inject: [SettlementBatches, CLOCK, LOGGER, METRICS, WALLETS_OPTIONS],
      useFactory: (
        settlement: SettlementBatches,
        clock: Clock,
        logger: Logger,
        metrics: PlatformMetrics,
        options: WalletsModuleOptions,
      ) =>
        new SettlementRunner(
          settlement,
          clock,
          logger.child({ component: 'settlement' }),
          new SettlementMetrics(metrics.registry),
          options.settlement?.intervalMs ?? 0,
        ),
    },
    {
      provide: SettlementRunnerLifecycle,
      inject: [SettlementRunner],
      useFactory: (runner: SettlementRunner) => new SettlementRunnerLifecycle(runner),
    },
    ...contractProviders(WalletsService, WALLETS_CONTRACTS),
    {
      provide: WithdrawalPayouts,
      inject: [WalletsService, ConsumerHost, CLOCK, LOGGER, METRICS],
      useFactory: (
        wallets: WalletsService,
        consumers: ConsumerHost,
        clock: Clock,
        logger: Logger,
        metrics: PlatformMetrics,
      ) =>
        new WithdrawalPayouts({
          execute: (environment, requested) => wallets.executeWithdrawal(environment, requested),
          // A withdrawal the saga has moved past may not be in the read model yet after a crash.
          pending: async (environment) => {
            await consumers.drain(environment, [walletTransactionsReadModel.group], RESUME_CATCH_UP_MS);
            return wallets.pendingWithdrawalRequests(environment);
          },
          clock,
          logger,
          metrics: new PayoutMetrics(metrics.registry),
        }),
    },
    {
      provide: PayoutRunnerLifecycle,
      inject: [WithdrawalPayouts],
      useFactory: (payouts: WithdrawalPayouts) => new PayoutRunnerLifecycle(payouts),
    },
    {
      provide: DepositWatchers,
      inject: [WALLETS_OPTIONS, WalletsService, INFRASTRUCTURE, LOGGER],
      useFactory: (
        options: WalletsModuleOptions,
        wallets: WalletsService,
        infrastructure: Infrastructure,
        logger: Logger,
      ) => new DepositWatchers(options, wallets, infrastructure, logger),
    },
  ],
  exports: [
    WalletsService,
    ...WALLETS_CONTRACTS.map((contract) => contract.token),
    DepositWatchers,
    WithdrawalPayouts,
    SettlementBatches,
    SettlementRunner,
  ],
})
export class WalletsModule {
  constructor(
    @Inject(ConsumerHost) consumers: ConsumerHost,
    @Inject(WithdrawalPayouts) payouts: WithdrawalPayouts,
  ) {
    consumers.register({
      group: WITHDRAWAL_PAYOUT_GROUP,
      topics: [withdrawalRequested.topic],
      // The payouts run on their own: a failing one is retried without holding up the ones behind it. The
      // offset may move on at once, as a requested withdrawal stays pending in the log until paid.
      handle: async (ports, messages) => {
        for (const { event } of messages)
          if (withdrawalRequested.is(event)) payouts.submit(ports.scope as Environment, event);
      },
    });
  }
}
