import { DynamicModule, Module } from '@nestjs/common';
import { DistributorsModule } from '@cip/distributors/service';
import { EventsModule } from '@cip/events/service';
import { GatewayHttpModule } from '@cip/gateway/http';
import { InfrastructureModule } from '@cip/shared/infrastructure';
import {
  DistributedInfrastructureOptions,
  openDistributedInfrastructure,
} from '@cip/shared/infrastructure/distributed';
import { Logger, PlatformMetrics } from '@cip/shared/runtime';
import { UsersClientOptions, UsersTransportModule } from '@cip/users/service';

export interface GatewayModuleOptions {
  infrastructure: Omit<DistributedInfrastructureOptions, 'logger' | 'metrics'>;
  users: UsersClientOptions;
  logger: Logger;
  metrics: PlatformMetrics;
}

/**
 * The /v1 gateway of the distributed runtime. Commands go to the context services over TCP; the control
 * plane (API keys), idempotency records and read models are read from the stores directly. It runs no
 * consumers: the services that own the streams keep the read models and Event records up to date.
 */
@Module({})
export class GatewayModule {
  static forRoot(options: GatewayModuleOptions): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        InfrastructureModule.forRoot({
          open: ({ logger, metrics }) =>
            openDistributedInfrastructure({ ...options.infrastructure, logger, metrics }),
          runConsumers: false,
          logger: options.logger,
          metrics: options.metrics,
        }),
        GatewayHttpModule.forRoot({
          imports: [
            DistributorsModule,
            UsersTransportModule.forClient(options.users),
            // Reads only: the Event records are written by the services' recorders.
            EventsModule.forRoot({ mappers: [] }),
          ],
        }),
      ],
    };
  }
}
