import {
  BeforeApplicationShutdown,
  DynamicModule,
  Inject,
  Module,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { Environment, ENVIRONMENTS } from '@cip/shared/contracts';
import { ConsumerHost, Infrastructure, INFRASTRUCTURE } from '@cip/shared/infrastructure';
import { CLOCK, Clock } from '@cip/shared/runtime';
import {
  DepositSink,
  DepositWatcher,
  PayoutJournal,
  SimulatedChain,
  WatcherCheckpoint,
} from '@cip/wallets/chain';
import { recordWalletTransactions, walletsProjection } from '@cip/wallets/read-models';
import { walletTransactionsReadModel } from './wallet-transactions.read-model';
import { readStoreWatcherCheckpoint, walletDepositSink, walletPayoutJournal } from './chain-bindings';
import { WALLETS_API } from './wallets.api';
import { WalletChain, WalletsService } from './wallets.service';

/** Domain event of the users context that starts provisioning (matched by name: contexts share no code). */
const USER_ACTIVATED = 'UserActivated';
export const WALLET_PROVISIONING_GROUP = 'wallets.provisioning';
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
}

const OPTIONS = Symbol('WALLETS_MODULE_OPTIONS');

/** Starts the configured deposit watchers with the application and stops them before the stores close. */
export class DepositWatchers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private running = new Map<Environment, DepositWatcher>();

  constructor(
    private readonly options: WalletsModuleOptions,
    private readonly wallets: WalletsService,
    private readonly infrastructure: Infrastructure,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const environment of ENVIRONMENTS) {
      const watcher = this.options.watcher?.(
        environment,
        walletDepositSink(this.wallets, environment),
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
 * saga (user activated -> wallet) and the withdrawal saga (requested -> payout -> confirmed or rejected).
 */
@Module({})
export class WalletsModule {
  static forRoot(options: WalletsModuleOptions): DynamicModule {
    return {
      module: WalletsModule,
      providers: [
        { provide: OPTIONS, useValue: options },
        {
          provide: WalletsService,
          inject: [INFRASTRUCTURE, ConsumerHost, CLOCK],
          useFactory: (infrastructure: Infrastructure, consumers: ConsumerHost, clock: Clock) => {
            const simulatedChain = new SimulatedChain(clock);
            // Built once the service exists: the payout journal of each environment is kept by it.
            const chains = new Map<Environment, WalletChain>();
            const wallets = new WalletsService(
              {
                eventStore: (environment) => infrastructure.scope(environment).eventStore,
                readStore: (environment) => infrastructure.scope(environment).readStore,
                // A list read right after the user's activation must show the wallet the provisioning saga
                // creates for it: the saga catches up first, then the read models with what it appended.
                settle: (environment) =>
                  consumers
                    .drain(environment, [WALLET_PROVISIONING_GROUP], 2_000)
                    .then(() =>
                      consumers.drain(
                        environment,
                        [`projection.${walletsProjection.name}`, walletTransactionsReadModel.group],
                        2_000,
                      ),
                    )
                    .catch(() => undefined),
                chain: (environment) => chains.get(environment) as WalletChain,
                simulatedChain,
              },
              clock,
            );
            for (const environment of ENVIRONMENTS)
              chains.set(
                environment,
                options.chain(environment, {
                  simulated: simulatedChain,
                  payoutJournal: walletPayoutJournal(wallets, environment),
                }),
              );
            return wallets;
          },
        },
        { provide: WALLETS_API, useExisting: WalletsService },
        {
          provide: DepositWatchers,
          inject: [WalletsService, INFRASTRUCTURE],
          useFactory: (wallets: WalletsService, infrastructure: Infrastructure) =>
            new DepositWatchers(options, wallets, infrastructure),
        },
      ],
      exports: [WalletsService, WALLETS_API, DepositWatchers],
    };
  }

  constructor(
    @Inject(ConsumerHost) consumers: ConsumerHost,
    @Inject(WalletsService) wallets: WalletsService,
  ) {
    consumers.registerProjection(walletsProjection);
    consumers.register({
      group: walletTransactionsReadModel.group,
      topics: walletTransactionsReadModel.topics,
      handle: (ports, messages) =>
        recordWalletTransactions(
          ports.readStore,
          messages.map((m) => m.event),
        ),
    });
    consumers.register({
      group: WALLET_PROVISIONING_GROUP,
      topics: ['usr'],
      async handle(ports, messages) {
        for (const { event } of messages) {
          if (event.type !== USER_ACTIVATED) continue;
          const { userId } = event.data as { userId: string };
          await wallets.provisionWallet(ports.scope as Environment, {
            userId,
            distributorId: event.metadata.distributorId ?? '',
            causationId: event.metadata.eventId,
          });
        }
      },
    });
    consumers.register({
      group: WITHDRAWAL_PAYOUT_GROUP,
      topics: ['wlt'],
      // Payouts of one batch go out together; the batch is committed once every outcome is recorded.
      handle: async (ports, messages) => {
        await Promise.all(
          messages
            .filter((m) => m.event.type === 'WithdrawalRequested')
            .map((m) => wallets.executeWithdrawal(ports.scope as Environment, m.event)),
        );
      },
    });
  }
}
