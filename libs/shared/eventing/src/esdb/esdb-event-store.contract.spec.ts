import { EventStoreDBClient } from '@eventstore/db-client';
import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { eventStoreContract } from '../contract/event-store.contract';
import { EsdbEventStore } from './esdb-event-store';

describeWhenConfigured('EVENTSTORE_URL', 'event store contract: EventStoreDB', (url) => {
  let client: EventStoreDBClient;
  eventStoreContract({
    appendMany: false,
    refusesReusedEventIds: false,
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

/**
 * Needs the projections subsystem (`--run-projections=System`, as docker-compose.yml and the CI workflow run
 * it): the store enables `$by_correlation_id` itself.
 */
describeWhenConfigured('EVENTSTORE_URL', 'EventStoreDB: events by correlation id', (url) => {
  jest.setTimeout(30_000);
  let client: EventStoreDBClient;
  let store: EsdbEventStore;
  const event = (correlationId: string) => ({
    type: 'CardCreated',
    data: { cardId: 'crd-1' },
    metadata: {
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      correlationId,
      causationId: correlationId,
      schemaVersion: 1,
    },
  });

  beforeAll(async () => {
    client = EventStoreDBClient.connectionString(url);
    store = new EsdbEventStore({
      client,
      scopePrefix: `bc${randomBytes(6).toString('hex')}`,
      name: 'esdb:correlation',
    });
    await store.enableCorrelationIndex();
  });
  afterAll(async () => {
    await store?.close();
    await client?.dispose();
  });

  it('tells whether events with a correlation id were appended, as soon as the append is acknowledged', async () => {
    const appended = `req_${randomUUID()}`;
    const written = event(appended);
    await store.append('crd-1', [written]);
    // No wait in between: the store waits for the projection to reach the log's head itself.
    expect(await store.hasEventsCorrelatedWith(appended)).toBe(true);
    expect(await store.hasEventsCorrelatedWith(`req_${randomUUID()}`)).toBe(false);
    // The copy under EventStoreDB's own name stays in the server: the port reads its metadata as written.
    const [read] = await store.readStream('crd-1');
    expect(read.metadata).toEqual(written.metadata);
  });

  it('enables the projection only once: enabling it again changes nothing', async () => {
    await store.enableCorrelationIndex();
    const appended = `req_${randomUUID()}`;
    await store.append('crd-2', [event(appended)]);
    expect(await store.hasEventsCorrelatedWith(appended)).toBe(true);
  });
});
