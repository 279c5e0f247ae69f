import { eventsContract } from '@cip/events/contract';
import { EVENTS_CONTROLLERS } from '@cip/events/http';
import type { ContextDefinition } from '@cip/shared/infrastructure';
import { EventsModule } from './events.module';
import { publicEventsReadModel } from './public-events-read-model';

/**
 * The events context: the public Event records of every other context hosted in the same process (its read
 * model takes the registry's mappers), read by distributors and delivered by the webhook dispatcher.
 */
export const eventsContext: ContextDefinition = {
  name: 'events',
  contracts: [eventsContract],
  module: EventsModule,
  readModels: (mappers) => [publicEventsReadModel(mappers)],
  publicEvents: [],
  sagas: [],
  controllers: EVENTS_CONTROLLERS,
};
