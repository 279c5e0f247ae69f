import { KafkaJSProtocolError } from 'kafkajs';
import type { Kafka } from 'kafkajs';
import { KafkaMessageBus } from './kafka-message-bus';

/**
 * Kafka as a bus starting beside others sees it: the topic another process just created is not yet known to
 * the broker that answers the metadata request (UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this
 * topic-partition"), `failures` times, then it is.
 */
function fakeKafka(failures: number, sent: string[][]) {
  let left = failures;
  const unknownTopic = () =>
    new KafkaJSProtocolError({
      type: 'UNKNOWN_TOPIC_OR_PARTITION',
      code: 3,
      retriable: true,
      message: 'This server does not host this topic-partition',
    } as unknown as Error);
  const admin = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    listTopics: async () => [],
    createTopics: async () => {
      if (left > 0) {
        left--;
        throw unknownTopic();
      }
      return false;
    },
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => ({
      topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0 }, { partitionId: 1 }] })),
    }),
  };
  const producer = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    send: async ({ topic }: { topic: string }) => void sent.push([topic]),
    sendBatch: async ({ topicMessages }: { topicMessages: { topic: string }[] }) =>
      void sent.push(topicMessages.map((entry) => entry.topic)),
  };
  return { admin: () => admin, producer: () => producer } as unknown as Kafka;
}

const published = (bus: KafkaMessageBus) =>
  bus.publish('usr', [
    {
      key: 'usr-1',
      event: {
        type: 'UserCreated',
        data: {},
        metadata: { eventId: 'e-1', occurredAt: new Date().toISOString(), schemaVersion: 1 },
      },
    },
  ]);

describe('KafkaMessageBus topic creation beside other processes', () => {
  it('tries again when the broker does not know yet a topic just created elsewhere, then publishes', async () => {
    const sent: string[][] = [];
    const bus = new KafkaMessageBus({
      kafka: fakeKafka(3, sent),
      topicPrefix: 'sandbox.',
      clientId: 'test',
      partitions: 2,
    });
    await published(bus);
    expect(sent.flat()).toEqual(['sandbox.usr']);
    await bus.close();
  });

  it('gives up after a bounded number of attempts, with the broker’s error', async () => {
    const sent: string[][] = [];
    const bus = new KafkaMessageBus({
      kafka: fakeKafka(100, sent),
      topicPrefix: 'sandbox.',
      clientId: 'test',
      partitions: 2,
    });
    await expect(published(bus)).rejects.toThrow('does not host this topic-partition');
    expect(sent).toEqual([]);
    await bus.close();
  });
});
