import { DynamicModule, Module } from '@nestjs/common';
import { SystemController } from '@cip/gateway/http';
import { EventsModule } from '@cip/events/service';
import { InfrastructureModule } from '@cip/shared/infrastructure';
import {
  DistributedInfrastructureOptions,
  openDistributedInfrastructure,
} from '@cip/shared/infrastructure/distributed';
import { Logger, PlatformMetrics } from '@cip/shared/runtime';
import { userPublicEvents } from '@cip/users/read-models';
import { UsersTransportModule } from '@cip/users/service';

export interface UsersServiceModuleOptions {
  infrastructure: Omit<DistributedInfrastructureOptions, 'logger' | 'metrics'>;
  logger: Logger;
  metrics: PlatformMetrics;
}

/**
 * The users service of the distributed runtime: the users context behind its TCP handlers, on EventStoreDB,
 * Kafka and MongoDB. It runs the users projection and records the users' public Events, since it is the
 * process that owns those streams.
 */
@Module({})
export class UsersServiceModule {
  static forRoot(options: UsersServiceModuleOptions): DynamicModule {
    return {
      module: UsersServiceModule,
      imports: [
        InfrastructureModule.forRoot({
          open: ({ logger, metrics }) =>
            openDistributedInfrastructure({ ...options.infrastructure, logger, metrics }),
          runConsumers: true,
          logger: options.logger,
          metrics: options.metrics,
        }),
        UsersTransportModule.forServer(),
        EventsModule.forRoot({ mappers: [userPublicEvents] }),
      ],
      controllers: [SystemController],
    };
  }
}
