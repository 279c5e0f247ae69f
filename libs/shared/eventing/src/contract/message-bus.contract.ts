import { waitFor } from '@cip/shared/testing';
import { randomUUID } from 'node:crypto';
import type { BusConsumer, BusMessage, MessageBus } from '../message-bus.port';
import { testEvent } from './event-store.contract';

/**
 * The message bus contract (embedded bus, Kafka): per-key order, consumer groups independent of each
 * other, offsets committed after the handler so that a failure redelivers and a restart resumes.
 */
export interface MessageBusContractTarget {
  open(): Promise<MessageBus>;
  cleanup(): Promise<void>;
  /** A topic name unique to this run (Kafka topics must exist or be auto-created). */
  topic(): string;
}

export function messageBusContract(target: MessageBusContractTarget): void {
  let bus: MessageBus;
  const consumers: BusConsumer[] = [];

  beforeAll(async () => {
    bus = await target.open();
  });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
  });
  afterAll(async () => {
    await bus.close();
    await target.cleanup();
  });

  const publish = (topic: string, key: string, n: number, label = 'Message') =>
    bus.publish(
      topic,
      Array.from({ length: n }, (_, i) => ({ key, event: testEvent(label, { n: i, key }) })),
    );

  it('delivers published messages of subscribed topics, in order per key', async () => {
    const topic = target.topic();
    const keys = [`${topic}-${randomUUID()}`, `${topic}-${randomUUID()}`];
    const received: BusMessage[] = [];
    consumers.push(
      await bus.consume({
        groupId: `g-${randomUUID()}`,
        topics: [topic],
        handle: async (messages) => {
          received.push(...messages);
        },
      }),
    );
    await Promise.all(keys.map((key) => publish(topic, key, 5)));
    await waitFor(() => received.length >= 10, { what: 'the 10 published messages to be consumed' });
    for (const key of keys) {
      const ofKey = received.filter((m) => m.key === key);
      expect(ofKey.map((m) => m.event.data.n)).toEqual([0, 1, 2, 3, 4]);
      expect(ofKey.every((m) => m.topic === topic)).toBe(true);
    }
  });

  it('gives every consumer group every message', async () => {
    const topic = target.topic();
    const key = `${topic}-${randomUUID()}`;
    const counts = [0, 0];
    for (const i of [0, 1]) {
      consumers.push(
        await bus.consume({
          groupId: `g-${randomUUID()}`,
          topics: [topic],
          handle: async (messages) => {
            counts[i] += messages.length;
          },
        }),
      );
    }
    await publish(topic, key, 7);
    await waitFor(() => counts[0] >= 7 && counts[1] >= 7, { what: 'both groups to get the 7 messages' });
    expect(counts).toEqual([7, 7]);
  });

  it('redelivers a batch whose handler failed (at-least-once)', async () => {
    const topic = target.topic();
    const key = `${topic}-${randomUUID()}`;
    let failures = 0;
    const delivered: number[] = [];
    consumers.push(
      await bus.consume({
        groupId: `g-${randomUUID()}`,
        topics: [topic],
        handle: async (messages) => {
          if (failures < 2) {
            failures++;
            throw new Error('receiver not ready');
          }
          delivered.push(...messages.map((m) => m.event.data.n as number));
        },
      }),
    );
    await publish(topic, key, 3);
    await waitFor(() => new Set(delivered).size >= 3, { what: 'the failed batch to be redelivered' });
    expect(failures).toBe(2);
    expect([...new Set(delivered)].sort()).toEqual([0, 1, 2]);
  });

  it('resumes a group after a restart from its committed offset', async () => {
    const topic = target.topic();
    const key = `${topic}-${randomUUID()}`;
    const groupId = `g-${randomUUID()}`;
    const first: number[] = [];
    const consumer = await bus.consume({
      groupId,
      topics: [topic],
      handle: async (messages) => {
        first.push(...messages.map((m) => m.event.data.n as number));
      },
    });
    await publish(topic, key, 3, 'Early');
    await waitFor(() => first.length >= 3, { what: 'the 3 early messages to be consumed' });
    await consumer.drain();
    await consumer.stop();

    await publish(topic, key, 2, 'Late');
    const second: BusMessage[] = [];
    consumers.push(
      await bus.consume({
        groupId,
        topics: [topic],
        handle: async (messages) => {
          second.push(...messages);
        },
      }),
    );
    await waitFor(() => second.length >= 2, { what: 'the restarted group to get the 2 late messages' });
    expect(second.map((m) => m.event.type)).toEqual(['Late', 'Late']);
  });

  it('drains: resolves once everything published before the call is handled', async () => {
    const topic = target.topic();
    let handled = 0;
    const consumer = await bus.consume({
      groupId: `g-${randomUUID()}`,
      topics: [topic],
      handle: async (messages) => {
        handled += messages.length;
      },
    });
    consumers.push(consumer);
    await publish(topic, `${topic}-${randomUUID()}`, 25);
    await consumer.drain(30_000);
    expect(handled).toBe(25);
  });

  it('ignores topics the group did not subscribe to', async () => {
    const wanted = target.topic();
    const other = target.topic();
    const received: BusMessage[] = [];
    const consumer = await bus.consume({
      groupId: `g-${randomUUID()}`,
      topics: [wanted],
      handle: async (messages) => {
        received.push(...messages);
      },
    });
    consumers.push(consumer);
    await publish(other, `${other}-${randomUUID()}`, 3);
    await publish(wanted, `${wanted}-${randomUUID()}`, 1);
    await waitFor(() => received.length >= 1, { what: 'a message to be consumed' });
    await consumer.drain(30_000);
    expect(received.map((m) => m.topic)).toEqual([wanted]);
  });
}
