import { Controller, DynamicModule, Get, Header, Inject, Module } from '@nestjs/common';
import { EventsModule } from '@cip/events/service';
import { InfrastructureModule } from '@cip/shared/infrastructure';
import {
  DistributedInfrastructureOptions,
  openDistributedInfrastructure,
} from '@cip/shared/infrastructure/distributed';
import { Logger, METRICS, PlatformMetrics } from '@cip/shared/runtime';
import { userPublicEvents } from '@cip/users/read-models';
import { UsersTransportModule } from '@cip/users/service';

/** The service's own HTTP listener: probes and Prometheus, nothing of the public API. */
@Controller()
class ServiceProbesController {
  constructor(@Inject(METRICS) private readonly metrics: PlatformMetrics) {}

  @Get('health')
  health() {
    return { status: 'ok' };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  prometheus(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}

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
      controllers: [ServiceProbesController],
    };
  }
}
