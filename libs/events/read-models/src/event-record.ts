import type { PublicEvent } from '@cip/shared/contracts';

/** A stored public Event: the API shape plus its owner for tenant filtering (never rendered). */
export type EventRecord = PublicEvent & { distributorId: string; [field: string]: unknown };

export const EVENT_RECORDS = 'events';
export const EVENT_SNAPSHOTS = 'event_snapshots';
/** Per domain event, the ids of the public Events recorded from it (how the webhook dispatcher finds them). */
export const EVENT_SOURCES = 'event_sources';

export function renderEvent(record: EventRecord): PublicEvent {
  const { distributorId: _distributorId, ...event } = record;
  return event as PublicEvent;
}
