import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { describeWhenConfigured, waitFor } from '@cip/shared/testing';
import { Kafka, logLevel } from 'kafkajs';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testEvent } from '../contract/event-store.contract';
import type { BusConsumer, BusMessage } from '../message-bus.port';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import { KafkaMessageBus } from './kafka-message-bus';
import { KafkaRelay, RELAY_CHECKPOINT_STREAM } from './kafka-relay';

describeWhenConfigured('KAFKA_BROKERS', 'kafka relay: event store log to category topics', (brokers) => {
  jest.setTimeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'cip-relay-'));
  const category = `rl${randomBytes(5).toString('hex')}`;
  const received: BusMessage[] = [];
  let db: SqliteDatabase;
  let store: SqliteEventStore;
  let bus: KafkaMessageBus;
  let consumer: BusConsumer;

  beforeAll(async () => {
    db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
    store = new SqliteEventStore(db, { name: 'sqlite:relay-contract', pollIntervalMs: 20 });
    bus = new KafkaMessageBus({
      kafka: new Kafka({
        clientId: 'cip-relay-contract',
        brokers: brokers.split(','),
        logLevel: logLevel.WARN,
      }),
      topicPrefix: `ct${randomBytes(6).toString('hex')}.`,
      clientId: 'kafka:relay-contract',
      partitions: 3,
    });
    consumer = await bus.consume({
      groupId: 'relay-contract',
      topics: [category],
      handle: async (messages) => {
        received.push(...messages);
      },
    });
  });
  afterAll(async () => {
    await consumer.stop();
    await bus.close();
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lastCheckpoint = async () => {
    const checkpoints = await store.readStream(RELAY_CHECKPOINT_STREAM);
    return checkpoints[checkpoints.length - 1].data.position as number;
  };

  it('produces each appended event to its category topic, keyed by stream id, in stream order', async () => {
    const relay = new KafkaRelay({ store, bus, batchSize: 3 });
    await relay.start();
    try {
      const streams = [`${category}-${randomUUID()}`, `${category}-${randomUUID()}`];
      for (let n = 0; n < 5; n++) {
        for (const stream of streams) await store.append(stream, [testEvent('Counted', { n })]);
      }
      await store.append(`other-${randomUUID()}`, [testEvent('Elsewhere')]);
      await waitFor(() => received.length >= 10, { what: 'the relay to publish the 10 events' });
      await consumer.drain(30_000);
      expect(received).toHaveLength(10);
      for (const stream of streams) {
        const ofStream = received.filter((m) => m.key === stream);
        expect(ofStream.map((m) => [m.topic, m.event.streamId, m.event.revision, m.event.data.n])).toEqual(
          [0, 1, 2, 3, 4].map((n) => [category, stream, n, n]),
        );
        const positions = ofStream.map((m) => m.event.position);
        expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      }
    } finally {
      await relay.stop();
    }
  });

  it('resumes from its checkpoint after a restart, resending nothing it had checkpointed', async () => {
    const checkpoint = await lastCheckpoint();
    const before = received.length;
    const stream = `${category}-${randomUUID()}`;
    await store.append(stream, [testEvent('AfterRestart', { n: 0 }), testEvent('AfterRestart', { n: 1 })]);

    const relay = new KafkaRelay({ store, bus });
    await relay.start();
    try {
      await waitFor(() => received.some((m) => m.key === stream && m.event.revision === 1), {
        what: 'the restarted relay to publish the events appended while it was down',
      });
      await consumer.drain(30_000);
    } finally {
      await relay.stop();
    }
    const sinceRestart = received.slice(before);
    expect(sinceRestart.every((m) => m.event.position > checkpoint)).toBe(true);
    expect(sinceRestart.map((m) => [m.key, m.event.type])).toEqual([
      [stream, 'AfterRestart'],
      [stream, 'AfterRestart'],
    ]);
    // Stopping waits for the batch in flight, checkpoint included.
    expect(await lastCheckpoint()).toBeGreaterThanOrEqual(sinceRestart[1].event.position);
  });
});
