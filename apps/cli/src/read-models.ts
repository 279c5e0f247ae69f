import { EVENT_RECORDS, EVENT_SNAPSHOTS, PublicEventRecorder } from '@cip/events/read-models';
import { PUBLIC_EVENTS_GROUP } from '@cip/events/service';
import { projectionReadModel, RebuildableReadModel, replayLog } from '@cip/shared/infrastructure';
import { userPublicEvents, usersProjection } from '@cip/users/read-models';
import {
  recordWalletTransactions,
  TRANSACTIONS_COLLECTION,
  WALLET_TRANSACTIONS_GROUP,
  walletPublicEvents,
  walletsProjection,
} from '@cip/wallets/read-models';

/** The same mappers as the platform's EventsModule, so rebuilt records equal the ones it records. */
const PUBLIC_EVENT_MAPPERS = [userPublicEvents, walletPublicEvents];

const publicEventsReadModel: RebuildableReadModel = {
  name: 'public-events',
  group: PUBLIC_EVENTS_GROUP,
  topics: new PublicEventRecorder(PUBLIC_EVENT_MAPPERS).topics,
  collections: [EVENT_RECORDS, EVENT_SNAPSHOTS],
  replay(eventStore, readStore, target) {
    const recorder = new PublicEventRecorder(PUBLIC_EVENT_MAPPERS, {
      records: target(EVENT_RECORDS),
      snapshots: target(EVENT_SNAPSHOTS),
    });
    return replayLog(eventStore, recorder.topics, (events) => recorder.record(readStore, events));
  },
};

const walletTransactionsReadModel: RebuildableReadModel = {
  name: 'wallet-transactions',
  group: WALLET_TRANSACTIONS_GROUP,
  topics: ['wlt'],
  collections: [TRANSACTIONS_COLLECTION],
  replay: (eventStore, readStore, target) =>
    replayLog(eventStore, ['wlt'], (events) => recordWalletTransactions(readStore, events, target(TRANSACTIONS_COLLECTION))),
};

/** The read models of each environment that the CLI can verify and rebuild. */
export const READ_MODELS: RebuildableReadModel[] = [
  projectionReadModel(usersProjection),
  publicEventsReadModel,
  projectionReadModel(walletsProjection),
  walletTransactionsReadModel,
];
