import { EVENT_RECORDS, EVENT_SNAPSHOTS, EVENT_SOURCES, PublicEventRecorder } from '@cip/events/read-models';
import { RebuildableReadModel, replayLog } from '@cip/shared/infrastructure';
import type { PublicEventMapper } from '@cip/shared/read-store';
import { PUBLIC_EVENTS_GROUP } from './events.service';

/** The public Event records as a read model that tools can verify and rebuild from the log. */
export const publicEventsReadModel = (mappers: PublicEventMapper[]): RebuildableReadModel => ({
  name: 'public-events',
  group: PUBLIC_EVENTS_GROUP,
  topics: new PublicEventRecorder(mappers).topics,
  collections: [EVENT_RECORDS, EVENT_SNAPSHOTS, EVENT_SOURCES],
  replay(eventStore, readStore, target) {
    const recorder = new PublicEventRecorder(mappers, {
      records: target(EVENT_RECORDS),
      snapshots: target(EVENT_SNAPSHOTS),
      sources: target(EVENT_SOURCES),
    });
    return replayLog(eventStore, recorder.topics, (events) => recorder.record(readStore, events));
  },
});
