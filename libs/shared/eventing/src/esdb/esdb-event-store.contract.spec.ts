import { EventStoreDBClient } from '@eventstore/db-client';
import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import { eventStoreContract } from '../contract/event-store.contract';
import { EsdbEventStore } from './esdb-event-store';

describeWhenConfigured('EVENTSTORE_URL', 'event store contract: EventStoreDB', (url) => {
  let client: EventStoreDBClient;
  eventStoreContract({
    appendMany: false,
    open: async () => {
      client = EventStoreDBClient.connectionString(url);
      // A fresh prefix per run: the server keeps every earlier run's streams, this run sees none of them.
      return new EsdbEventStore({
        client,
        scopePrefix: `ct${randomBytes(6).toString('hex')}`,
        name: 'esdb:contract',
      });
    },
    cleanup: async () => {
      await client.dispose();
    },
  });
});
