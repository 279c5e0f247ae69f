import { describeWhenConfigured, freshDatabase } from '@cip/shared/testing';
import { eventStoreContract } from '../contract/event-store.contract';
import { PostgresEventStore } from './postgres-event-store';

describeWhenConfigured('DATABASE_URL', 'event store contract: PostgreSQL', (serverUrl) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  eventStoreContract({
    appendMany: true,
    open: async () => {
      database = await freshDatabase(serverUrl, 'cip_es_contract');
      return PostgresEventStore.open({
        name: 'postgres:contract',
        connectionString: database.url,
        pollIntervalMs: 50,
      });
    },
    cleanup: async () => {
      await database.drop();
    },
  });
});
