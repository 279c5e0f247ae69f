import { DynamicModule, Module } from '@nestjs/common';
import { DistributorsModule } from '@cip/distributors/service';
import { EventsModule } from '@cip/events/service';
import { GatewayHttpModule } from '@cip/gateway/http';
import { InfrastructureModule, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import { userPublicEvents } from '@cip/users/read-models';
import { UsersModule } from '@cip/users/service';
import { webhookSubscriptionPublicEvents } from '@cip/webhooks/read-models';
import { WebhooksModule, WebhooksModuleOptions } from '@cip/webhooks/service';

export interface PlatformModuleOptions {
  dataDir: string;
  logger: Logger;
  metrics?: PlatformMetrics;
  clock?: Clock;
  /** How often live subscriptions look for appends made by another process (the CLI). */
  pollIntervalMs?: number;
  webhooks: Omit<WebhooksModuleOptions, 'dataDir' | 'eventTopics'>;
}

/**
 * The embedded runtime: every context's service module in one process, on SQLite files under DATA_DIR,
 * with the in-process bus driving projections and recorders.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const mappers = [userPublicEvents, webhookSubscriptionPublicEvents];
    const events = EventsModule.forRoot({ mappers });
    const webhooks = WebhooksModule.forRoot({
      ...options.webhooks,
      dataDir: options.dataDir,
      eventTopics: mappers.map((mapper) => mapper.topic),
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
        webhooks,
        GatewayHttpModule.forRoot({ imports: [DistributorsModule, UsersModule, events, webhooks] }),
      ],
    };
  }
}
