import { InterruptibleBackOff } from '@cip/shared/runtime';
import { Partitioners } from 'kafkajs';
import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage, Message, Producer } from 'kafkajs';
import { EventData, RecordedEvent, categoryOf } from '../event-store.port';
import type { BusConsumer, BusMessage, ConsumeOptions, MessageBus } from '../message-bus.port';

export interface KafkaBusObserver {
  /** A handler failed; the same messages are retried after a back-off. */
  onHandlerError?(groupId: string, error: unknown, attempt: number): void;
  /** A consumer group settled a batch: messages still waiting on the partitions it has seen. */
  onProgress?(groupId: string, lag: number): void;
  /** kafkajs stopped a consumer on a Kafka error; it restarts it unless `restart` is false. */
  onConsumerCrash?(groupId: string, error: unknown, restart: boolean): void;
}

export interface KafkaMessageBusOptions {
  kafka: Kafka;
  /** Prefix of every topic and consumer group of this bus (`sandbox.`), so that scopes never share one. */
  topicPrefix: string;
  /** Label of this bus in errors and logs. */
  clientId: string;
  /** Partitions of the topics this bus creates (default 6): the ceiling of a group's parallelism. */
  partitions?: number;
  /** Replication factor of the topics this bus creates (default: the broker's default). */
  replicationFactor?: number;
  observer?: KafkaBusObserver;
  /**
   * What a drain waits for before it reads the partition ends: that what was appended to the store before
   * the call is on Kafka (the relay's progress, RelayWatermark.waitForRelay). Rejects at `deadline`.
   */
  awaitPublished?(deadline: number): Promise<void>;
}

/**
 * A topic whose partition count is not the one the bus is configured with. A stream's events keep their order
 * because its key always lands on the same partition, which holds only while the count stays the one the
 * topic was written with: the bus refuses to use such a topic, and the relay to start or go on.
 */
export class TopicPartitionsMismatchError extends Error {
  constructor(
    readonly topic: string,
    readonly found: number,
    readonly configured: number,
    clientId: string,
  ) {
    super(
      `Topic ${topic} has ${found} partitions, ${clientId} is configured with ${configured}: ` +
        'per-stream order depends on the count, so the bus refuses to use it',
    );
    this.name = 'TopicPartitionsMismatchError';
  }
}

/** Attempts at creating (or finding) a bus's topics when the broker's answer is retriable. */
const TOPIC_CREATION_ATTEMPTS = 12;

/**
 * Message bus on Kafka (kafkajs). A port topic `usr` is the Kafka topic `${topicPrefix}usr`; messages are
 * keyed by stream id, so one stream's events share a partition and keep their order. The producer is
 * idempotent with one request in flight: its own retries neither duplicate nor reorder. Consumers commit
 * offsets by hand, only after their handler has resolved (at-least-once), and retry a failing handler on
 * the same messages with a capped back-off instead of skipping them.
 */
export class KafkaMessageBus implements MessageBus {
  private readonly producer: Producer;
  private readonly admin: Admin;
  private connection: Promise<void> | null = null;
  private readonly ensuredTopics = new Map<string, Promise<void>>();
  private readonly consumers = new Map<string, KafkaBusConsumer>();
  private closed = false;

  constructor(private readonly options: KafkaMessageBusOptions) {
    this.producer = options.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      // The Java client's murmur2 partitioner: a key lands on the same partition whatever client produced it.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.admin = options.kafka.admin();
  }

  async publish(topic: string, messages: { key: string; event: EventData }[]): Promise<void> {
    for (const { key } of messages) {
      if (categoryOf(key) !== topic) throw new Error(`Message key ${key} is not a stream of topic ${topic}`);
    }
    // Published directly, not read from the store: the event has no revision or global position.
    await this.send(
      messages.map(({ key, event }) => ({
        streamId: key,
        revision: -1,
        position: -1,
        type: event.type,
        data: event.data,
        metadata: event.metadata,
      })),
    );
  }

  /**
   * Produces events read from the event store (the relay's path): each to the topic of its stream's
   * category, keyed by its stream id, in the given order per stream. Resolves once every broker has them.
   */
  async publishRecorded(events: RecordedEvent[]): Promise<void> {
    await this.send(events);
  }

  private async send(events: RecordedEvent[]): Promise<void> {
    if (this.closed) throw new Error(`Message bus ${this.options.clientId} is closed`);
    if (events.length === 0) return;
    const byTopic = new Map<string, Message[]>();
    for (const event of events) {
      const topic = this.kafkaTopic(categoryOf(event.streamId));
      const messages = byTopic.get(topic) ?? [];
      messages.push({ key: event.streamId, value: JSON.stringify(event) });
      byTopic.set(topic, messages);
    }
    await this.ensureTopics([...byTopic.keys()]);
    await this.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }

  async consume(options: ConsumeOptions): Promise<BusConsumer> {
    if (this.closed) throw new Error(`Message bus ${this.options.clientId} is closed`);
    if (this.consumers.has(options.groupId)) {
      throw new Error(`Consumer group ${options.groupId} already has a consumer in this process`);
    }
    const topics = options.topics.map((topic) => this.kafkaTopic(topic));
    await this.ensureTopics(topics);
    const consumer = new KafkaBusConsumer(
      this.options.kafka,
      this.admin,
      options,
      this.kafkaGroup(options.groupId),
      topics,
      this.options.topicPrefix,
      this.options.observer ?? {},
      () => this.consumers.delete(options.groupId),
      this.options.awaitPublished,
    );
    this.consumers.set(options.groupId, consumer);
    try {
      await consumer.start();
    } catch (error) {
      await consumer.stop();
      throw error;
    }
    return consumer;
  }

  async resetGroup(groupId: string, topics: string[]): Promise<void> {
    if (this.consumers.has(groupId)) throw new Error(`Stop consumer group ${groupId} before resetting it`);
    const kafkaTopics = topics.map((topic) => this.kafkaTopic(topic));
    await this.ensureTopics(kafkaTopics);
    // kafkajs refuses while any process still has a member in the group.
    for (const topic of kafkaTopics) {
      await this.admin.resetOffsets({ groupId: this.kafkaGroup(groupId), topic, earliest: true });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.consumers.values()].map((c) => c.stop()));
    if (this.connection) {
      await this.connection.catch(() => undefined);
      await Promise.all([this.producer.disconnect(), this.admin.disconnect()]);
    }
  }

  private kafkaTopic(topic: string): string {
    return `${this.options.topicPrefix}${topic}`;
  }

  /** Consumer groups are cluster-wide: the same group name in two scopes must not become one group. */
  private kafkaGroup(groupId: string): string {
    return `${this.options.topicPrefix}${groupId}`;
  }

  private connect(): Promise<void> {
    if (!this.connection) {
      this.connection = Promise.all([this.producer.connect(), this.admin.connect()]).then(() => undefined);
      this.connection.catch(() => (this.connection = null));
    }
    return this.connection;
  }

  /** Creates the topics that do not exist yet; brokers here never create topics on first use. */
  private async ensureTopics(topics: string[]): Promise<void> {
    const missing = topics.filter((topic) => !this.ensuredTopics.has(topic));
    if (missing.length) {
      const creation = this.createTopics(missing);
      for (const topic of missing) this.ensuredTopics.set(topic, creation);
      creation.catch(() => missing.forEach((topic) => this.ensuredTopics.delete(topic)));
    }
    await Promise.all(topics.map((topic) => this.ensuredTopics.get(topic)));
  }

  /**
   * Processes of a topology start together and create the same topics: right after another one's creation the
   * broker may still answer "does not host this topic-partition" (UNKNOWN_TOPIC_OR_PARTITION, retriable)
   * while kafkajs waits for the leaders. Such an answer is tried again, a few times, before it fails the start.
   */
  private async createTopics(topics: string[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.createTopicsOnce(topics);
      } catch (error) {
        const retriable = (error as { retriable?: boolean; type?: string }).retriable === true;
        if (!retriable || attempt >= TOPIC_CREATION_ATTEMPTS || this.closed) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * attempt, 1_000)));
      }
    }
  }

  private async createTopicsOnce(topics: string[]): Promise<void> {
    await this.connect();
    const partitions = this.options.partitions ?? 6;
    const existing = new Set(await this.admin.listTopics());
    const toCreate = topics.filter((topic) => !existing.has(topic));
    if (toCreate.length > 0) {
      // Resolves false when another process created them first: their partition count is checked below.
      await this.admin.createTopics({
        waitForLeaders: true,
        topics: toCreate.map((topic) => ({
          topic,
          numPartitions: partitions,
          replicationFactor: this.options.replicationFactor ?? -1,
        })),
      });
    }
    // A stream's events keep their order because its key always lands on the same partition, which holds
    // only while the partition count stays the one the topic was written with: a topic created (or grown)
    // with another count would send a stream's next events elsewhere, and consumers would read them out of
    // order. Such a topic stops the bus instead.
    await this.verifyPartitions(topics);
  }

  /**
   * Checks every topic of this bus that exists on the cluster (those named with its prefix) against the
   * configured partition count; throws TopicPartitionsMismatchError for one that differs. The relay runs it
   * before it starts: it produces to whatever category topics the log names.
   */
  async checkPartitions(): Promise<void> {
    if (this.closed) throw new Error(`Message bus ${this.options.clientId} is closed`);
    await this.connect();
    const topics = (await this.admin.listTopics()).filter((topic) =>
      topic.startsWith(this.options.topicPrefix),
    );
    if (topics.length) await this.verifyPartitions(topics);
  }

  private async verifyPartitions(topics: string[]): Promise<void> {
    const partitions = this.options.partitions ?? 6;
    const { topics: metadata } = await this.admin.fetchTopicMetadata({ topics });
    for (const { name, partitions: found } of metadata) {
      if (found.length !== partitions) {
        throw new TopicPartitionsMismatchError(name, found.length, partitions, this.options.clientId);
      }
    }
  }
}

const RETRY_CEILING_MS = 5000;
const DRAIN_POLL_MS = 100;

class KafkaBusConsumer implements BusConsumer {
  readonly groupId: string;
  private readonly consumer: Consumer;
  private stopping = false;
  private shutdown: Promise<void> | null = null;
  private readonly backOff = new InterruptibleBackOff();
  private readonly lagByPartition = new Map<string, number>();
  private crash: unknown = undefined;

  constructor(
    kafka: Kafka,
    private readonly admin: Admin,
    private readonly options: ConsumeOptions,
    private readonly kafkaGroupId: string,
    private readonly kafkaTopics: string[],
    private readonly topicPrefix: string,
    private readonly observer: KafkaBusObserver,
    private readonly onStopped: () => void,
    private readonly awaitPublished?: (deadline: number) => Promise<void>,
  ) {
    this.groupId = options.groupId;
    this.consumer = kafka.consumer({
      groupId: kafkaGroupId,
      allowAutoTopicCreation: false,
      // How long the broker holds a fetch that finds nothing new (kafkajs' default is 5 s, the Java
      // client's 500 ms): a stop or a rebalance waits for the fetch in flight before it leaves the group.
      maxWaitTimeInMs: 500,
    });
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      // kafkajs restarts a consumer after a retriable crash; after any other it stays stopped.
      if (!payload.restart) this.crash = payload.error ?? new Error('consumer crashed');
      this.observer.onConsumerCrash?.(this.groupId, payload.error, payload.restart);
    });
    // A member reports its lag from the moment it is given partitions, not only once a batch arrives: a
    // group with nothing to read is running (lag 0), and shows so on the operators' pages.
    this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
      void this.reportAssignedLag(payload.memberAssignment).catch(() => undefined);
    });
  }

  /** The lag of the partitions this member was just given: their end minus the group's committed offset. */
  private async reportAssignedLag(assignment: Record<string, number[]>): Promise<void> {
    const lags = new Map<string, number>();
    for (const [topic, partitions] of Object.entries(assignment)) {
      const [committed, ends] = await Promise.all([
        this.admin.fetchOffsets({ groupId: this.kafkaGroupId, topics: [topic] }),
        this.admin.fetchTopicOffsets(topic),
      ]);
      for (const partition of partitions) {
        const end = ends.find((candidate) => candidate.partition === partition);
        const offset = Number(
          committed[0]?.partitions.find((candidate) => candidate.partition === partition)?.offset ?? -1,
        );
        if (!end) continue;
        // No committed offset: the group reads the partition from its beginning (fromBeginning).
        lags.set(`${topic}:${partition}`, Number(end.high) - (offset >= 0 ? offset : Number(end.low)));
      }
    }
    // The partitions of an earlier assignment are another member's now.
    this.lagByPartition.clear();
    for (const [key, lag] of lags) this.lagByPartition.set(key, lag);
    let lag = 0;
    for (const partitionLag of this.lagByPartition.values()) lag += partitionLag;
    this.observer.onProgress?.(this.groupId, lag);
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    // A group without committed offsets starts at the beginning, like the embedded bus: nothing published
    // before its members joined is lost, and a new projection builds from the whole topic.
    await this.consumer.subscribe({ topics: this.kafkaTopics, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.processBatch(payload),
    });
  }

  private async processBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const topic = batch.topic.slice(this.topicPrefix.length);
    const batchSize = this.options.batchSize ?? 500;
    for (let start = 0; start < batch.messages.length; start += batchSize) {
      if (this.abandons(payload)) return;
      const chunk = batch.messages.slice(start, start + batchSize);
      // Unresolved messages are fetched again: by this member after a seek, by another after a rebalance.
      if (!(await this.handleWithRetry(topic, chunk, payload))) return;
      payload.resolveOffset(chunk[chunk.length - 1].offset);
      // Without offsets, commitOffsetsIfNecessary() only commits on autoCommit thresholds, which are off.
      await payload.commitOffsetsIfNecessary(payload.uncommittedOffsets());
      await payload.heartbeat();
    }
    this.lagByPartition.set(`${batch.topic}:${batch.partition}`, Number(batch.offsetLag()));
    let lag = 0;
    for (const partitionLag of this.lagByPartition.values()) lag += partitionLag;
    this.observer.onProgress?.(this.groupId, lag);
  }

  /** True once the handler succeeded; false when the consumer stops or loses the partition first. */
  private async handleWithRetry(
    topic: string,
    chunk: KafkaMessage[],
    payload: EachBatchPayload,
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.handle(chunk.map((message) => toBusMessage(topic, message)));
        return true;
      } catch (error) {
        this.observer.onHandlerError?.(this.groupId, error, attempt);
        const retryAt = Date.now() + Math.min(RETRY_CEILING_MS, 50 * 2 ** Math.min(attempt, 7));
        // Heartbeats keep the partition assigned while the same messages wait; a heartbeat that reports a
        // rebalance throws out of eachBatch and kafkajs rejoins the group (the messages stay uncommitted).
        do {
          if (this.abandons(payload)) return false;
          await this.backOff.wait(Math.min(retryAt - Date.now(), 1000));
          if (this.abandons(payload)) return false;
          await payload.heartbeat();
        } while (Date.now() < retryAt);
      }
    }
  }

  /** The batch in hand is no longer ours to finish: the consumer stops, or a seek or rebalance took it. */
  private abandons(payload: EachBatchPayload): boolean {
    return this.stopping || !payload.isRunning() || payload.isStale();
  }

  async drain(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // Events appended to the store before the call reach Kafka through the relay: it must be past them first.
    await this.awaitPublished?.(deadline);
    // The end of every non-empty partition now: what "published before the call" means on Kafka.
    const targets = new Map<string, bigint>();
    for (const topic of this.kafkaTopics) {
      for (const { partition, high, low } of await this.admin.fetchTopicOffsets(topic)) {
        if (BigInt(high) > BigInt(low)) targets.set(`${topic}:${partition}`, BigInt(high));
      }
    }
    for (;;) {
      const committed = new Map<string, bigint>();
      for (const { topic, partitions } of await this.admin.fetchOffsets({
        groupId: this.kafkaGroupId,
        topics: this.kafkaTopics,
      })) {
        for (const { partition, offset } of partitions)
          committed.set(`${topic}:${partition}`, BigInt(offset));
      }
      // A committed offset is the next one to read; -1 (none) and -2 (reset to earliest) are below any end.
      if ([...targets].every(([key, end]) => (committed.get(key) ?? -1n) >= end)) return;
      if (Date.now() >= deadline) {
        throw new Error(
          `Consumer group ${this.groupId} did not reach the end of its topics in ${timeoutMs} ms`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_POLL_MS, deadline - Date.now())));
    }
  }

  failure(): unknown {
    return this.crash;
  }

  stop(): Promise<void> {
    this.shutdown ??= this.shutDown();
    return this.shutdown;
  }

  private async shutDown(): Promise<void> {
    this.stopping = true;
    this.backOff.interrupt();
    try {
      // Waits for the batch in hand (a retry loop returns at its next check), then leaves the group.
      await this.consumer.disconnect();
    } finally {
      this.onStopped();
    }
  }
}

function toBusMessage(topic: string, message: KafkaMessage): BusMessage {
  if (!message.value) throw new Error(`Message at offset ${message.offset} of ${topic} has no value`);
  const event = JSON.parse(message.value.toString('utf8')) as RecordedEvent;
  return { topic, key: message.key?.toString('utf8') ?? event.streamId, event };
}
