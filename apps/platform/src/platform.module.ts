import { DynamicModule, Module } from '@nestjs/common';
import { DistributorsModule } from '@cip/distributors/service';
import { EventsModule } from '@cip/events/service';
import { GatewayHttpModule } from '@cip/gateway/http';
import { InfrastructureModule, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import { userPublicEvents } from '@cip/users/read-models';
import { UsersModule } from '@cip/users/service';
import { walletPublicEvents } from '@cip/wallets/read-models';
import { WalletsModule, WalletsModuleOptions } from '@cip/wallets/service';
import { WALLETS_CONTROLLERS } from '@cip/gateway/http';

export interface PlatformModuleOptions {
  dataDir: string;
  logger: Logger;
  metrics?: PlatformMetrics;
  clock?: Clock;
  /** How often live subscriptions look for appends made by another process (the CLI). */
  pollIntervalMs?: number;
  /** Chain adapters of the wallets context. */
  wallets: WalletsModuleOptions;
}

/**
 * The embedded runtime: every context's service module in one process, on SQLite files under DATA_DIR,
 * with the in-process bus driving projections and recorders.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const events = EventsModule.forRoot({ mappers: [userPublicEvents, walletPublicEvents] });
    const wallets = WalletsModule.forRoot(options.wallets);
    return {
      module: PlatformModule,
      imports: [
        InfrastructureModule.forRoot({
          open: ({ metrics, logger }) =>
            openEmbeddedInfrastructure({ dataDir: options.dataDir, metrics, logger, pollIntervalMs: options.pollIntervalMs }),
          runConsumers: true,
          logger: options.logger,
          metrics: options.metrics,
          clock: options.clock,
        }),
        DistributorsModule,
        UsersModule,
        wallets,
        events,
        GatewayHttpModule.forRoot({ imports: [DistributorsModule, UsersModule, events, wallets], controllers: WALLETS_CONTROLLERS }),
      ],
    };
  }
}
