import { EVENT_RECORDS, EVENT_SNAPSHOTS, EVENT_SOURCES, PublicEventRecorder } from '@cip/events/read-models';
import { RebuildableReadModel, replayLog } from '@cip/shared/infrastructure';
import type { PublicEventMapper } from '@cip/shared/read-store';
import { PUBLIC_EVENTS_GROUP } from './events.service';

/**
 * The public Event records as a read model: kept by one consumer group over the topics of every mapper, and
 * verified or rebuilt from the log by operators.
 */
export function publicEventsReadModel(mappers: PublicEventMapper[]): RebuildableReadModel {
  const live = new PublicEventRecorder(mappers);
  return {
    name: 'public-events',
    group: PUBLIC_EVENTS_GROUP,
    topics: live.topics,
    collections: [EVENT_RECORDS, EVENT_SNAPSHOTS, EVENT_SOURCES],
    apply: (readStore, events) => live.record(readStore, events),
    replay(eventStore, readStore, target) {
      const recorder = new PublicEventRecorder(mappers, {
        records: target(EVENT_RECORDS),
        snapshots: target(EVENT_SNAPSHOTS),
        sources: target(EVENT_SOURCES),
      });
      return replayLog(eventStore, recorder.topics, (events) => recorder.record(readStore, events));
    },
  };
}
