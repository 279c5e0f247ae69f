import { Module } from '@nestjs/common';
import { EVENTS_API, PUBLIC_EVENT_LOG } from '@cip/events/contract';
import { Environment } from '@cip/shared/contracts';
import { ConsumerHost, environmentStores, Infrastructure, INFRASTRUCTURE } from '@cip/shared/infrastructure';
import { EventsService, PUBLIC_EVENTS_GROUP } from './events.service';

/**
 * Public Event records. The recorder (a read model of this context, registered from the registry) maps the
 * domain events of every context the process hosts with their own mappers, so contexts stay unaware of each
 * other; this module serves the records to distributors and to the webhook dispatcher.
 */
@Module({
  providers: [
    {
      provide: EventsService,
      inject: [INFRASTRUCTURE, ConsumerHost],
      useFactory: (infrastructure: Infrastructure, consumers: ConsumerHost) =>
        new EventsService({
          readStore: environmentStores(infrastructure).readStore,
          settle: consumers.settler([PUBLIC_EVENTS_GROUP]),
          drain: (environment: Environment, timeoutMs: number) =>
            consumers.drain(environment, [PUBLIC_EVENTS_GROUP], timeoutMs),
        }),
    },
    { provide: EVENTS_API, useExisting: EventsService },
    { provide: PUBLIC_EVENT_LOG, useExisting: EventsService },
  ],
  exports: [EventsService, EVENTS_API, PUBLIC_EVENT_LOG],
})
export class EventsModule {}
