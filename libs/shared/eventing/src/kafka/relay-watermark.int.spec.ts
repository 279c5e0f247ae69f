import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { within } from '@cip/shared/testing';
import type { Kafka } from 'kafkajs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventData } from '../event-store.port';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import { RELAY_CHECKPOINT_STREAM } from './kafka-relay';
import { KafkaMessageBus } from './kafka-message-bus';
import { RelayWatermark } from './relay-watermark';

const event = (type: string, data: Record<string, unknown> = {}): EventData => ({
  type,
  data,
  metadata: { eventId: `${type}-${Math.random()}`, occurredAt: new Date().toISOString(), schemaVersion: 1 },
});

/** A promise the test settles by hand. */
function pending<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/**
 * Read-your-writes in the distributed runtime, with EventStoreDB and Kafka played by the embedded store and a
 * fake kafkajs client (the ESDB and Kafka contract suites need the servers, which do not run here).
 */
describe('RelayWatermark: a drain waits for the relay to produce the log head', () => {
  let dataDir: string;
  let db: SqliteDatabase;
  let store: SqliteEventStore;
  let checkpointRevision = -1;

  /** What KafkaRelay appends after producing a batch up to `position`. */
  const checkpoint = async (position: number) => {
    const result = await store.append(RELAY_CHECKPOINT_STREAM, [event('RelayCheckpointed', { position })], {
      expectedRevision: checkpointRevision < 0 ? 'no_stream' : checkpointRevision,
    });
    checkpointRevision = result.nextRevision;
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-watermark-'));
    db = openSqliteDatabase(join(dataDir, 'sandbox.sqlite'));
    store = new SqliteEventStore(db, { name: 'sqlite:sandbox' });
    checkpointRevision = -1;
  });

  afterEach(async () => {
    await store.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resolves once the relay has checkpointed past the write made before the call', async () => {
    const watermark = new RelayWatermark(store, RELAY_CHECKPOINT_STREAM, 5);
    await store.append('usr-1', [event('UserCreated')]);
    const written = await store.append('usr-2', [event('UserCreated')]);

    const waited = watermark.waitForRelay(Date.now() + 10_000);
    const state = { settled: false };
    void waited.then(() => (state.settled = true));
    // The relay produced the first event only: the caller's write is not on Kafka yet.
    await checkpoint(written.position - 1);
    expect(await watermark.relayedPosition()).toBe(written.position - 1);
    expect(state.settled).toBe(false);

    await checkpoint(written.position);
    await within(waited, { what: 'the wait to end once the relay passed the write', timeoutMs: 5_000 });
  });

  it("is satisfied at once when all past the relay's position is its own checkpoints", async () => {
    const written = await store.append('usr-1', [event('UserCreated')]);
    await checkpoint(written.position);
    // The head is now the checkpoint itself, which the relay never produces nor checkpoints past.
    expect(await store.headPosition()).toBeGreaterThan(written.position);
    await within(new RelayWatermark(store).waitForRelay(Date.now() + 5_000), {
      what: 'the wait to end without a checkpoint past the head',
      timeoutMs: 5_000,
    });
  });

  it('gives up at the deadline when the relay does not move', async () => {
    await store.append('usr-1', [event('UserCreated')]);
    await expect(
      new RelayWatermark(store, RELAY_CHECKPOINT_STREAM, 5).waitForRelay(Date.now() + 50),
    ).rejects.toThrow(/did not produce sqlite:sandbox up to position 1/);
  });
});

describe('KafkaMessageBus drain: the relay first, then the partition ends', () => {
  /** The kafkajs calls the bus makes, answered in memory: one topic, one partition at offset 5. */
  function fakeKafka(calls: string[]): Kafka {
    const connection = { connect: async () => undefined, disconnect: async () => undefined };
    return {
      producer: () => ({ ...connection, sendBatch: async () => [] }),
      admin: () => ({
        ...connection,
        listTopics: async () => ['sandbox.usr'],
        createTopics: async () => true,
        fetchTopicMetadata: async ({ topics }: { topics: string[] }) => ({
          topics: topics.map((name) => ({
            name,
            partitions: [0, 1, 2, 3, 4, 5].map((partitionId) => ({ partitionId })),
          })),
        }),
        fetchTopicOffsets: async () => {
          calls.push('fetchTopicOffsets');
          return [{ partition: 0, offset: '5', high: '5', low: '0' }];
        },
        fetchOffsets: async () => {
          calls.push('fetchOffsets');
          return [{ topic: 'sandbox.usr', partitions: [{ partition: 0, offset: '5', metadata: null }] }];
        },
      }),
      consumer: () => ({
        ...connection,
        events: { CRASH: 'consumer.crash' },
        on: () => () => undefined,
        subscribe: async () => undefined,
        run: async () => undefined,
      }),
    } as unknown as Kafka;
  }

  it("waits for the relay's progress before it reads the partition ends, and fails with it", async () => {
    const calls: string[] = [];
    const relayed = pending<void>();
    let deadlineSeen = 0;
    const bus = new KafkaMessageBus({
      kafka: fakeKafka(calls),
      topicPrefix: 'sandbox.',
      clientId: 'test',
      awaitPublished: (deadline) => {
        deadlineSeen = deadline;
        calls.push('awaitPublished');
        return relayed.promise;
      },
    });
    const consumer = await bus.consume({
      groupId: 'users-read-model',
      topics: ['usr'],
      handle: async () => undefined,
    });

    const startedAt = Date.now();
    const drained = consumer.drain(2_000);
    await new Promise(setImmediate);
    expect(calls).toEqual(['awaitPublished']);
    expect(deadlineSeen).toBeGreaterThanOrEqual(startedAt + 2_000);

    relayed.resolve();
    await within(drained, { what: 'the drain to end once the relay is past the head', timeoutMs: 5_000 });
    expect(calls).toEqual(['awaitPublished', 'fetchTopicOffsets', 'fetchOffsets']);

    // A relay that does not get there in time fails the drain (a list's settle then serves what it has).
    const late = pending<void>();
    const lateBus = new KafkaMessageBus({
      kafka: fakeKafka([]),
      topicPrefix: 'sandbox.',
      clientId: 'test-late',
      awaitPublished: () => late.promise,
    });
    const lateConsumer = await lateBus.consume({
      groupId: 'g',
      topics: ['usr'],
      handle: async () => undefined,
    });
    const lateDrain = lateConsumer.drain(100);
    late.reject(new Error('The relay did not produce sqlite:sandbox up to position 9 in time'));
    await expect(lateDrain).rejects.toThrow(/relay did not produce/);
    await bus.close();
    await lateBus.close();
  });
});
