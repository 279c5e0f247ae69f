export { renderEvent } from '@cip/events/contract';
export type { EventRecord, EventOrigin } from '@cip/events/contract';

export const EVENT_RECORDS = 'events';
/**
 * Written by recorders before each Event carried its `origin`: per entity, a copy of its view, and per
 * domain event, the ids of the Events recorded from it. No longer written; the old index is still read for
 * Events recorded before (see `findRecordedEvents`), the old snapshots are ignored.
 */
export const LEGACY_EVENT_SOURCES = 'event_sources';
