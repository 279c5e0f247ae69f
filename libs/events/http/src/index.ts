import { EventsController } from './events.controller';

export * from './events.controller';

/** The events context's HTTP surface (distributor API). */
export const EVENTS_CONTROLLERS = [EventsController];
