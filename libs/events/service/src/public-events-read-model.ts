import { EVENT_RECORDS, PublicEventRecorder } from '@cip/events/read-models';
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
    collections: [EVENT_RECORDS],
    apply: (readStore, events, eventStore) => live.record(readStore, events, eventStore),
    replay(eventStore, readStore, target) {
      const recorder = new PublicEventRecorder(mappers, target(EVENT_RECORDS));
      return replayLog(eventStore, recorder.topics, (events) =>
        recorder.record(readStore, events, eventStore),
      );
    },
  };
}
