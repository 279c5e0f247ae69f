import { describeWhenConfigured } from '@cip/shared/testing';
import { Kafka, logLevel } from 'kafkajs';
import { randomBytes } from 'node:crypto';
import { messageBusContract } from '../contract/message-bus.contract';
import { KafkaMessageBus } from './kafka-message-bus';

describeWhenConfigured('KAFKA_BROKERS', 'message bus contract: Kafka', (brokers) => {
  // Joining a consumer group takes seconds on Kafka, more than Jest's default 5 s per test.
  jest.setTimeout(60_000);
  messageBusContract({
    open: async () =>
      new KafkaMessageBus({
        kafka: new Kafka({ clientId: 'cip-contract', brokers: brokers.split(','), logLevel: logLevel.WARN }),
        // A fresh prefix per run: topics and groups of earlier runs stay on the broker, unseen.
        topicPrefix: `ct${randomBytes(6).toString('hex')}.`,
        clientId: 'kafka:contract',
        partitions: 3,
      }),
    cleanup: async () => undefined,
    topic: () => `t${randomBytes(6).toString('hex')}`,
  });
});
