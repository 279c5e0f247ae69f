import { DynamicModule, Module } from '@nestjs/common';
import { DistributorsModule } from '@cip/distributors/service';
import { EventsModule } from '@cip/events/service';
import { GatewayHttpModule } from '@cip/gateway/http';
import { InfrastructureModule, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import { userPublicEvents } from '@cip/users/read-models';
import { UsersModule } from '@cip/users/service';
import { UsersService } from '@cip/users/service';
import { DistributorDirectory } from '@cip/distributors/service';
import { kycPublicEvents } from '@cip/kyc/read-models';
import { KYC_LINK_KEY_SECRET, KycModule } from '@cip/kyc/service';
import { loadOrCreateSecret } from '@cip/shared/runtime';
import { randomBytes } from 'node:crypto';
import { UsersForKyc } from './kyc-user-directory';

export interface PlatformModuleOptions {
  dataDir: string;
  logger: Logger;
  metrics?: PlatformMetrics;
  clock?: Clock;
  /** How often live subscriptions look for appends made by another process (the CLI). */
  pollIntervalMs?: number;
  /** Key of hosted KYC link signatures (KYC_LINK_SECRET); generated under DATA_DIR/secrets when unset. */
  kycLinkSecret?: string;
}

/**
 * The embedded runtime: every context's service module in one process, on SQLite files under DATA_DIR,
 * with the in-process bus driving projections and recorders.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const events = EventsModule.forRoot({ mappers: [userPublicEvents, kycPublicEvents] });
    const kyc = KycModule.forRoot({
      imports: [UsersModule, DistributorsModule],
      userDirectory: {
        inject: [UsersService, DistributorDirectory],
        useFactory: (users: UsersService, directory: DistributorDirectory) =>
          new UsersForKyc(users, directory),
      },
      linkKey: loadOrCreateSecret({
        dataDir: options.dataDir,
        name: KYC_LINK_KEY_SECRET,
        fromEnv: options.kycLinkSecret,
        generate: () => randomBytes(32).toString('base64url'),
      }),
    });
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
        events,
        kyc,
        GatewayHttpModule.forRoot({ imports: [DistributorsModule, UsersModule, events, kyc], kyc: true }),
      ],
    };
  }
}
