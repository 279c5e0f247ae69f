import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { describeWhenConfigured, waitFor } from '@cip/shared/testing';
import { Kafka, logLevel } from 'kafkajs';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testEvent } from '../contract/event-store.contract';
import type { BusConsumer, BusMessage } from '../message-bus.port';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import { KafkaMessageBus, TopicPartitionsMismatchError } from './kafka-message-bus';
import { KafkaRelay, RELAY_CHECKPOINT_STREAM } from './kafka-relay';

const execFileAsync = promisify(execFile);

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

  describe('a topic with another partition count than the bus is configured with', () => {
    // A bus of its own (its own prefix), so that the odd topic never reaches the other cases' relays.
    const prefix = `pc${randomBytes(6).toString('hex')}.`;
    const kafka = new Kafka({
      clientId: 'cip-relay-partitions',
      brokers: brokers.split(','),
      logLevel: logLevel.WARN,
    });
    const admin = kafka.admin();
    let oddBus: KafkaMessageBus;
    /** A topic of the bus created by someone else with 2 partitions (the bus has 3). */
    const createOddTopic = async (category: string) => {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [{ topic: `${prefix}${category}`, numPartitions: 2 }],
      });
    };

    beforeAll(async () => {
      await admin.connect();
      oddBus = new KafkaMessageBus({
        kafka,
        topicPrefix: prefix,
        clientId: 'kafka:relay-partitions',
        partitions: 3,
      });
    });
    afterAll(async () => {
      await oddBus.close();
      await admin.disconnect();
    });

    it('stops the relay, rather than retry, when it meets such a topic while it runs', async () => {
      const category = `po${randomBytes(5).toString('hex')}`;
      const errors: unknown[] = [];
      let retries = 0;
      const relay = new KafkaRelay({
        store,
        bus: oddBus,
        checkpointStream: `relaycheckpoint-odd${randomBytes(4).toString('hex')}`,
        onError: (error) => errors.push(error),
        onRetry: () => retries++,
      });
      await relay.start(); // no topic of its prefix yet: nothing to refuse
      try {
        await createOddTopic(category);
        await store.append(`${category}-${randomUUID()}`, [testEvent('Counted', { n: 0 })]);
        await waitFor(() => relay.status().state === 'stopped', {
          what: 'the relay to stop on the odd topic',
        });
        expect(errors).toHaveLength(1);
        expect(errors[0]).toBeInstanceOf(TopicPartitionsMismatchError);
        expect(retries).toBe(0);
      } finally {
        await relay.stop();
      }
    });

    it('refuses to start while one of its topics has it, saying which and why', async () => {
      await createOddTopic(`pr${randomBytes(5).toString('hex')}`);
      const relay = new KafkaRelay({ store, bus: oddBus });
      await expect(relay.start()).rejects.toThrow(
        new RegExp(
          `^Kafka relay refuses to start: Topic ${prefix.replace('.', '\\.')}p[or][0-9a-f]+ has 2 partitions, ` +
            'kafka:relay-partitions is configured with 3: per-stream order depends on the count',
        ),
      );
      expect(relay.status().state).toBe('running'); // never subscribed: nothing produced
      expect(relay.position).toBe(0);
    });
  });
});

/**
 * A broker of its own (tools/ci/kafka.sh), killed with kill -9 while the relay produces, then restarted on
 * its log: the relay retries, and the topic ends up with every event, each stream's in order (a resent batch
 * repeats events, never reorders them). Runs wherever Kafka runs (KAFKA_BROKERS is set); the suite's own
 * broker, not that one, is the one killed.
 */
describeWhenConfigured('KAFKA_BROKERS', 'kafka relay: the broker killed (kill -9) and restarted', () => {
  jest.setTimeout(90_000);
  const script = join(__dirname, '..', '..', '..', '..', '..', 'tools', 'ci', 'kafka.sh');
  const brokerDir = mkdtempSync(join(tmpdir(), 'cip-relay-crash-kafka-'));
  const dir = mkdtempSync(join(tmpdir(), 'cip-relay-crash-'));
  const kafkaSh = async (command: 'start' | 'kill' | 'restart' | 'stop') => {
    const { stdout } = await execFileAsync('bash', [script, command, brokerDir], { timeout: 120_000 });
    return stdout.trim().split('\n').pop() ?? '';
  };
  let db: SqliteDatabase;
  let store: SqliteEventStore;
  let bus: KafkaMessageBus;
  let brokers: string[];

  beforeAll(async () => {
    brokers = [(await kafkaSh('start')).replace(/^KAFKA_BROKERS=/, '')];
    db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
    store = new SqliteEventStore(db, { name: 'sqlite:relay-crash', pollIntervalMs: 20 });
    bus = new KafkaMessageBus({
      // The broker goes away: kafkajs' connection errors are expected, the assertions tell what was lost.
      // kafkajs gives up on a send after a few quick retries, so that the relay's own retries take over.
      kafka: new Kafka({
        clientId: 'cip-relay-crash',
        brokers,
        logLevel: logLevel.NOTHING,
        retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
      }),
      topicPrefix: `ct${randomBytes(6).toString('hex')}.`,
      clientId: 'kafka:relay-crash',
      partitions: 3,
    });
  });
  afterAll(async () => {
    await bus?.close();
    await store?.close();
    db?.close();
    await kafkaSh('stop');
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses nothing and keeps each stream in order when the broker is killed mid-produce', async () => {
    const category = `rc${randomBytes(5).toString('hex')}`;
    const streams = Array.from({ length: 4 }, () => `${category}-${randomUUID()}`);
    const ROUNDS = 30;
    let retries = 0;
    const relay = new KafkaRelay({ store, bus, batchSize: 7, onRetry: () => retries++ });
    await relay.start();
    const appendRounds = async (from: number, to: number) => {
      for (let n = from; n < to; n++) {
        for (const stream of streams) await store.append(stream, [testEvent('Counted', { n })]);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    try {
      await appendRounds(0, 10);
      await waitFor(() => relay.position > 0, { what: 'the relay to produce the first batches' });
      // Killed while the relay still has the other rounds to produce, appended during the crash.
      const appending = appendRounds(10, 20);
      const retriesBeforeCrash = retries;
      await kafkaSh('kill');
      await appending;
      await waitFor(() => retries > retriesBeforeCrash, {
        what: 'the relay to fail on the dead broker and retry',
      });
      await kafkaSh('restart');
      await appendRounds(20, ROUNDS);
      await waitFor(async () => (await relay.backlog()) === 0, {
        what: 'the relay to produce everything once the broker is back',
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      expect(relay.status().state).toBe('running');
    } finally {
      await relay.stop();
    }

    // What is on Kafka, read by a new consumer group from the beginning of the topic.
    const received: BusMessage[] = [];
    const consumer = await bus.consume({
      groupId: `after-crash-${randomUUID()}`,
      topics: [category],
      handle: async (messages) => {
        received.push(...messages);
      },
    });
    try {
      await consumer.drain(30_000);
    } finally {
      await consumer.stop();
    }
    for (const stream of streams) {
      const revisions = received.filter((m) => m.key === stream).map((m) => m.event.revision);
      // At least once: a batch the broker stored before the crash may be produced again, after itself.
      const firstSeen = revisions.filter((revision, i) => revisions.indexOf(revision) === i);
      expect(firstSeen).toEqual(Array.from({ length: ROUNDS }, (_, n) => n));
      // Each event follows the one before it on the stream, or starts a resent batch (a step back).
      expect(revisions.every((revision, i) => i === 0 || revision <= revisions[i - 1] + 1)).toBe(true);
    }
  });
});
