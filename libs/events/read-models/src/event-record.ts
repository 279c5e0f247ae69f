export { renderEvent } from '@cip/events/contract';
export type { EventRecord } from '@cip/events/contract';

export const EVENT_RECORDS = 'events';
export const EVENT_SNAPSHOTS = 'event_snapshots';
/** Per domain event, the ids of the public Events recorded from it (how the webhook dispatcher finds them). */
export const EVENT_SOURCES = 'event_sources';
