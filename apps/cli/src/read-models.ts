import { EVENT_RECORDS, EVENT_SNAPSHOTS, EVENT_SOURCES, PublicEventRecorder } from '@cip/events/read-models';
import { PUBLIC_EVENTS_GROUP } from '@cip/events/service';
import { projectionReadModel, RebuildableReadModel, replayLog } from '@cip/shared/infrastructure';
import { userPublicEvents, usersProjection } from '@cip/users/read-models';
import { webhookSubscriptionPublicEvents, webhookSubscriptionsProjection } from '@cip/webhooks/read-models';

/** The same mappers as the platform's EventsModule, so rebuilt records equal the ones it records. */
const PUBLIC_EVENT_MAPPERS = [userPublicEvents, webhookSubscriptionPublicEvents];

const publicEventsReadModel: RebuildableReadModel = {
  name: 'public-events',
  group: PUBLIC_EVENTS_GROUP,
  topics: new PublicEventRecorder(PUBLIC_EVENT_MAPPERS).topics,
  collections: [EVENT_RECORDS, EVENT_SNAPSHOTS, EVENT_SOURCES],
  replay(eventStore, readStore, target) {
    const recorder = new PublicEventRecorder(PUBLIC_EVENT_MAPPERS, {
      records: target(EVENT_RECORDS),
      snapshots: target(EVENT_SNAPSHOTS),
      sources: target(EVENT_SOURCES),
    });
    return replayLog(eventStore, recorder.topics, (events) => recorder.record(readStore, events));
  },
};

/** The read models of each environment that the CLI can verify and rebuild. */
export const READ_MODELS: RebuildableReadModel[] = [
  projectionReadModel(usersProjection),
  projectionReadModel(webhookSubscriptionsProjection),
  publicEventsReadModel,
];
