import { DynamicModule, Module } from '@nestjs/common';
import { DistributorsModule } from '@cip/distributors/service';
import { EventsModule } from '@cip/events/service';
import { GatewayHttpModule } from '@cip/gateway/http';
import { PUBLIC_EVENT_MAPPERS } from '@cip/platform/catalogue';
import { InfrastructureModule, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import { UsersModule } from '@cip/users/service';

export interface PlatformModuleOptions {
  dataDir: string;
  logger: Logger;
  metrics?: PlatformMetrics;
  clock?: Clock;
  /** How often live subscriptions look for appends made by another process (the CLI). */
  pollIntervalMs?: number;
}

/**
 * The embedded runtime: every context's service module in one process, on SQLite files under DATA_DIR,
 * with the in-process bus driving projections and recorders.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const events = EventsModule.forRoot({ mappers: PUBLIC_EVENT_MAPPERS });
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
        GatewayHttpModule.forRoot({ imports: [DistributorsModule, UsersModule, events] }),
      ],
    };
  }
}
