import { describeWhenConfigured, waitFor } from '@cip/shared/testing';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { randomBytes } from 'node:crypto';
import { messageBusContract } from '../contract/message-bus.contract';
import { testEvent } from '../contract/event-store.contract';
import type { BusConsumer, BusMessage } from '../message-bus.port';
import { KafkaMessageBus } from './kafka-message-bus';

const hex = () => randomBytes(6).toString('hex');

describeWhenConfigured('KAFKA_BROKERS', 'message bus contract: Kafka', (brokers) => {
  // Joining a consumer group takes seconds on Kafka (a new group waits group.initial.rebalance.delay.ms,
  // 3 s by default, for more members), more than Jest's default 5 s per test.
  jest.setTimeout(60_000);
  messageBusContract({
    open: async () =>
      new KafkaMessageBus({
        kafka: new Kafka({ clientId: 'cip-contract', brokers: brokers.split(','), logLevel: logLevel.WARN }),
        // A fresh prefix per run: topics and groups of earlier runs stay on the broker, unseen.
        topicPrefix: `ct${hex()}.`,
        clientId: 'kafka:contract',
        partitions: 3,
      }),
    cleanup: async () => undefined,
    topic: () => `t${hex()}`,
  });
});

describeWhenConfigured('KAFKA_BROKERS', 'Kafka bus: partition count, and a group rebalancing', (brokers) => {
  jest.setTimeout(60_000);
  const PARTITIONS = 3;
  // kafkajs logs the rebalance this suite provokes as errors; the assertions say what went wrong, if anything.
  const kafka = new Kafka({
    clientId: 'cip-kafka-bus',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  });
  const prefix = `ct${hex()}.`;
  const admin = kafka.admin();
  const buses: KafkaMessageBus[] = [];
  const consumers: BusConsumer[] = [];
  /** One bus per process of the platform: a process has at most one member of a group. */
  const open = (clientId: string) => {
    const bus = new KafkaMessageBus({ kafka, topicPrefix: prefix, clientId, partitions: PARTITIONS });
    buses.push(bus);
    return bus;
  };

  beforeAll(() => admin.connect());
  afterAll(async () => {
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    await Promise.all(buses.map((bus) => bus.close()));
    await admin.disconnect();
  });

  it('refuses a topic whose partition count is not the configured one (per-stream order depends on it)', async () => {
    const topic = `t${hex()}`;
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: `${prefix}${topic}`, numPartitions: PARTITIONS - 1 }],
    });
    const bus = open('kafka:partitions');
    const refusal = new RegExp(`${prefix}${topic} has 2 partitions, kafka:partitions is configured with 3`);
    await expect(bus.publish(topic, [{ key: `${topic}-1`, event: testEvent('Refused') }])).rejects.toThrow(
      refusal,
    );
    await expect(
      bus.consume({ groupId: 'g-partitions', topics: [topic], handle: async () => undefined }),
    ).rejects.toThrow(refusal);
    const offsets = await admin.fetchTopicOffsets(`${prefix}${topic}`);
    expect(offsets.map(({ high }) => high)).toEqual(['0', '0']);
  });

  it('hands every message to a member of the group across a rebalance during a retry, committing only handled ones', async () => {
    const topic = `t${hex()}`;
    const kafkaTopic = `${prefix}${topic}`;
    const groupId = `g-${hex()}`;
    // The partition of a key, as the bus's producer (the Java client's murmur2 partitioner) chooses it.
    const partitioner = Partitioners.DefaultPartitioner();
    const partitionMetadata = Array.from({ length: PARTITIONS }, (_, partitionId) => ({
      partitionErrorCode: 0,
      partitionId,
      leader: 1,
      replicas: [1],
      isr: [1],
    }));
    const partitionOf = (key: string) =>
      partitioner({ topic: kafkaTopic, partitionMetadata, message: { key, value: null } });

    const keys = Array.from({ length: 6 }, () => `${topic}-${hex()}`);
    const poison = { key: keys[0], n: 0 };
    const id = (key: string, n: number) => `${key}:${n}`;
    // Published one call after the other: on each partition, the messages' offsets follow this order.
    const published: { key: string; n: number }[] = [poison];
    for (let n = 1; n <= 4; n++) for (const key of keys) published.push({ key, n });
    published.push(...keys.slice(1).map((key) => ({ key, n: 0 })));
    const byPartition = Array.from({ length: PARTITIONS }, (_, p) =>
      published.filter(({ key }) => partitionOf(key) === p).map(({ key, n }) => id(key, n)),
    );

    const handled = new Set<string>();
    let retries = 0;
    let secondJoined = false;
    // Both members: the batch holding the poison message fails until the second member has joined (the
    // rebalance happens while the first one retries it); a handled batch records its effect, then returns.
    const handle = async (messages: BusMessage[]) => {
      if (!secondJoined && messages.some((m) => m.key === poison.key && m.event.data.n === poison.n)) {
        retries++;
        throw new Error('the receiver is not ready');
      }
      for (const m of messages) handled.add(id(m.key, m.event.data.n as number));
    };

    consumers.push(await open('kafka:member-1').consume({ groupId, topics: [topic], handle }));
    const bus = buses[buses.length - 1];
    await bus.publish(topic, [{ key: poison.key, event: testEvent('Poison', { n: 0 }) }]);
    await bus.publish(
      topic,
      published.slice(1).map(({ key, n }) => ({ key, event: testEvent('Counted', { n }) })),
    );
    await waitFor(() => retries >= 1, { what: 'the first member to retry the failing batch' });

    // Committed offsets, watched all along: an offset past a message whose effect is not recorded is a
    // message lost to a rebalance. (Effects are read after the offsets: a commit follows its effect.)
    const violations: string[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const [{ partitions }] = await admin.fetchOffsets({
          groupId: `${prefix}${groupId}`,
          topics: [kafkaTopic],
        });
        for (const { partition, offset } of partitions) {
          const unhandled = byPartition[partition]
            .slice(0, Math.max(0, Number(offset)))
            .filter((m) => !handled.has(m));
          if (unhandled.length)
            violations.push(`partition ${partition} committed ${offset} before ${unhandled}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const retriesBefore = retries;
    try {
      consumers.push(await open('kafka:member-2').consume({ groupId, topics: [topic], handle }));
      secondJoined = true;
      const { groups } = await admin.describeGroups([`${prefix}${groupId}`]);
      expect(groups[0].members).toHaveLength(2);
      await waitFor(() => handled.size === published.length, {
        what: `all ${published.length} messages handled by one member or the other`,
      });
      await consumers[consumers.length - 1].drain(30_000);
    } finally {
      watching = false;
      await watcher;
    }

    expect(retriesBefore).toBeGreaterThanOrEqual(1);
    expect(violations).toEqual([]);
    expect([...handled].sort()).toEqual(published.map(({ key, n }) => id(key, n)).sort());
  });
});
