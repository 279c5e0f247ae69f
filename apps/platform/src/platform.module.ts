import { DynamicModule, Module } from '@nestjs/common';
import { DistributorDirectory, DistributorsModule } from '@cip/distributors/service';
import { EventsModule } from '@cip/events/service';
import {
  GatewayHttpModule,
  KYC_CONTROLLERS,
  WALLETS_CONTROLLERS,
  WEBHOOKS_CONTROLLERS,
} from '@cip/gateway/http';
import { PUBLIC_EVENT_MAPPERS, UsersForKyc } from '@cip/platform/catalogue';
import { InfrastructureModule, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import { UsersModule, UsersService } from '@cip/users/service';
import { KycModule, loadKycLinkKey } from '@cip/kyc/service';
import { WalletsModule, WalletsModuleOptions } from '@cip/wallets/service';
import { WebhooksModule, WebhooksModuleOptions } from '@cip/webhooks/service';

export interface PlatformModuleOptions {
  dataDir: string;
  logger: Logger;
  metrics?: PlatformMetrics;
  clock?: Clock;
  /** How often live subscriptions look for appends made by another process (the CLI). */
  pollIntervalMs?: number;
  /** Key of hosted KYC link signatures (KYC_LINK_SECRET); generated under DATA_DIR/secrets when unset. */
  kycLinkSecret?: string;
  /** Chain adapters of the wallets context. */
  wallets: WalletsModuleOptions;
  webhooks: Omit<WebhooksModuleOptions, 'dataDir' | 'eventTopics'>;
}

/**
 * The embedded runtime: every context's service module in one process, on SQLite files under DATA_DIR,
 * with the in-process bus driving projections and recorders.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const events = EventsModule.forRoot({ mappers: PUBLIC_EVENT_MAPPERS });
    const kyc = KycModule.forRoot({
      imports: [UsersModule, DistributorsModule],
      userDirectory: {
        inject: [UsersService, DistributorDirectory],
        useFactory: (users: UsersService, directory: DistributorDirectory) =>
          new UsersForKyc(users, directory),
      },
      linkKey: loadKycLinkKey({ dataDir: options.dataDir, fromEnv: options.kycLinkSecret }),
    });
    const wallets = WalletsModule.forRoot(options.wallets);
    const webhooks = WebhooksModule.forRoot({
      ...options.webhooks,
      dataDir: options.dataDir,
      eventTopics: PUBLIC_EVENT_MAPPERS.map((mapper) => mapper.topic),
    });
    return {
      module: PlatformModule,
      imports: [
        InfrastructureModule.forRoot({
          open: ({ metrics, logger }) =>
            openEmbeddedInfrastructure({
              dataDir: options.dataDir,
              metrics,
              logger,
              pollIntervalMs: options.pollIntervalMs,
            }),
          runConsumers: true,
          logger: options.logger,
          metrics: options.metrics,
          clock: options.clock,
        }),
        DistributorsModule,
        UsersModule,
        wallets,
        events,
        kyc,
        webhooks,
        GatewayHttpModule.forRoot({
          imports: [DistributorsModule, UsersModule, events, kyc, wallets, webhooks],
          controllers: [...KYC_CONTROLLERS, ...WALLETS_CONTROLLERS, ...WEBHOOKS_CONTROLLERS],
        }),
      ],
    };
  }
}
