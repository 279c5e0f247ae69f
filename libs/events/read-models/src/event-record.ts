import type { PublicEvent } from '@cip/shared/contracts';

/** A stored public Event: the API shape plus its owner for tenant filtering (never rendered). */
export type EventRecord = PublicEvent & { distributorId: string; [field: string]: unknown };

export const EVENT_RECORDS = 'events';
export const EVENT_SNAPSHOTS = 'event_snapshots';

export function renderEvent(record: EventRecord): PublicEvent {
  const { distributorId: _distributorId, ...event } = record;
  return event as PublicEvent;
}
