import { DynamicModule, Inject, Module } from '@nestjs/common';
import { Environment } from '@cip/shared/contracts';
import { ConsumerHost, Infrastructure, INFRASTRUCTURE } from '@cip/shared/infrastructure';
import type { PublicEventMapper } from '@cip/shared/read-store';
import { PublicEventRecorder } from '@cip/events/read-models';
import { EventsService, PUBLIC_EVENTS_GROUP } from './events.service';

const MAPPERS = Symbol('PUBLIC_EVENT_MAPPERS');

/**
 * Public Event records. The app passes the mappers of the contexts it hosts, so contexts stay unaware of
 * each other; the recorder runs as one consumer group over all their topics.
 */
@Module({})
export class EventsModule {
  static forRoot(options: { mappers: PublicEventMapper[] }): DynamicModule {
    return {
      module: EventsModule,
      providers: [
        { provide: MAPPERS, useValue: options.mappers },
        {
          provide: EventsService,
          inject: [INFRASTRUCTURE, ConsumerHost],
          useFactory: (infrastructure: Infrastructure, consumers: ConsumerHost) =>
            new EventsService(
              (environment: Environment) => infrastructure.scope(environment).readStore,
              (environment: Environment) => consumers.settle(environment, [PUBLIC_EVENTS_GROUP]),
            ),
        },
      ],
      exports: [EventsService],
    };
  }

  constructor(@Inject(ConsumerHost) consumers: ConsumerHost, @Inject(MAPPERS) mappers: PublicEventMapper[]) {
    const recorder = new PublicEventRecorder(mappers);
    consumers.register({
      group: PUBLIC_EVENTS_GROUP,
      topics: recorder.topics,
      handle: (ports, messages) =>
        recorder.record(
          ports.readStore,
          messages.map((m) => m.event),
        ),
    });
  }
}
