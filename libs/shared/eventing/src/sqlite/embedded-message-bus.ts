import type { SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import { EventData, EventStore, StoreSubscription, categoryOf } from '../event-store.port';
import type { BusConsumer, BusMessage, ConsumeOptions, MessageBus } from '../message-bus.port';

export interface EmbeddedBusObserver {
  /** A consumer group settled a batch: its position and the log's head at that moment. */
  onProgress?(groupId: string, position: number, head: number): void;
  /** A consumer group handled a batch; `oldest` is its first (oldest) event. */
  onHandled?(groupId: string, oldest: BusMessage['event']): void;
  /** A handler failed; the batch is retried after a back-off. */
  onHandlerError?(groupId: string, error: unknown, attempt: number): void;
}

/**
 * The embedded message bus: topics are stream categories of the embedded event store, so the bus is
 * driven by the store's own global log and publishing is appending. Each consumer group's committed
 * offset (a global position) lives in the same SQLite file; it is committed only after the handler has
 * settled, so a crash redelivers the batch (at-least-once) and a restart resumes after the last commit.
 */
export class EmbeddedMessageBus implements MessageBus {
  private readonly consumers = new Set<EmbeddedConsumer>();
  private readonly readOffset: Statement;
  private readonly writeOffset: Statement;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly store: EventStore,
    private readonly observer: EmbeddedBusObserver = {},
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS consumer_offsets (
        group_id   TEXT PRIMARY KEY,
        position   INTEGER NOT NULL,
        updated_at TEXT    NOT NULL
      ) WITHOUT ROWID;
    `);
    this.readOffset = db.prepare('SELECT position FROM consumer_offsets WHERE group_id = ?').pluck();
    this.writeOffset = db.prepare(
      `INSERT INTO consumer_offsets (group_id, position, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (group_id) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
    );
  }

  async publish(topic: string, messages: { key: string; event: EventData }[]): Promise<void> {
    for (const { key, event } of messages) {
      if (categoryOf(key) !== topic) {
        throw new Error(`Message key ${key} is not a stream of topic ${topic}`);
      }
      await this.store.append(key, [event], { expectedRevision: 'any' });
    }
  }

  committedOffset(groupId: string): number {
    return (this.readOffset.get(groupId) as number | undefined) ?? 0;
  }

  commitOffset(groupId: string, position: number): void {
    this.writeOffset.run(groupId, position, new Date().toISOString());
  }

  async consume(options: ConsumeOptions): Promise<BusConsumer> {
    for (const existing of this.consumers) {
      if (existing.groupId === options.groupId) {
        throw new Error(`Consumer group ${options.groupId} already has a consumer in this process`);
      }
    }
    const consumer = new EmbeddedConsumer(this, this.store, options, this.observer, () =>
      this.consumers.delete(consumer),
    );
    this.consumers.add(consumer);
    consumer.start();
    return consumer;
  }

  async resetGroup(groupId: string): Promise<void> {
    for (const existing of this.consumers) {
      if (existing.groupId === groupId) throw new Error(`Stop consumer group ${groupId} before resetting it`);
    }
    this.commitOffset(groupId, 0);
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
  }
}

const SKIPPED_EVENTS_PER_COMMIT = 1000;

class EmbeddedConsumer implements BusConsumer {
  readonly groupId: string;
  private subscription: StoreSubscription | null = null;
  private stopping = false;
  private settled: number;
  private committed: number;
  private waiters: { target: number; resolve(): void }[] = [];

  constructor(
    private readonly bus: EmbeddedMessageBus,
    private readonly store: EventStore,
    private readonly options: ConsumeOptions,
    private readonly observer: EmbeddedBusObserver,
    private readonly onStopped: () => void,
  ) {
    this.groupId = options.groupId;
    this.settled = bus.committedOffset(options.groupId);
    this.committed = this.settled;
  }

  private commit(position: number): void {
    this.bus.commitOffset(this.groupId, position);
    this.committed = position;
  }

  start(): void {
    // Report where the group stands from the start, so an idle group shows its lag before any new event.
    void this.store.headPosition().then(
      (head) => this.observer.onProgress?.(this.groupId, this.settled, head),
      () => undefined,
    );
    const topics = new Set(this.options.topics);
    this.subscription = this.store.subscribeToAll({
      after: this.settled,
      batchSize: this.options.batchSize ?? 500,
      onEvents: async (events) => {
        const messages: BusMessage[] = [];
        for (const event of events) {
          const topic = categoryOf(event.streamId);
          if (topics.has(topic)) messages.push({ topic, key: event.streamId, event });
        }
        if (messages.length) await this.handleWithRetry(messages);
        if (this.stopping) return;
        if (messages.length) this.observer.onHandled?.(this.groupId, messages[0].event);
        const position = events[events.length - 1].position;
        // A batch with nothing for this group moves the offset in memory only (re-scanning it after a
        // crash is harmless); committing it would cost an fsync per batch per group for nothing.
        if (messages.length || position - this.committed >= SKIPPED_EVENTS_PER_COMMIT) this.commit(position);
        this.settled = position;
        this.observer.onProgress?.(this.groupId, position, await this.store.headPosition());
        this.waiters = this.waiters.filter((w) => (w.target <= position ? (w.resolve(), false) : true));
      },
    });
  }

  /** Retries a failing batch with capped exponential back-off: ordering is kept, nothing is skipped. */
  private async handleWithRetry(messages: BusMessage[]): Promise<void> {
    for (let attempt = 1; !this.stopping; attempt++) {
      try {
        await this.options.handle(messages);
        return;
      } catch (error) {
        this.observer.onHandlerError?.(this.groupId, error, attempt);
        await new Promise((r) => setTimeout(r, Math.min(5000, 50 * 2 ** Math.min(attempt, 7))));
      }
    }
  }

  async drain(timeoutMs = 10_000): Promise<void> {
    const target = await this.store.headPosition();
    if (this.settled >= target) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`Consumer ${this.groupId} did not reach position ${target} in ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        target,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.subscription?.stop();
    if (this.settled > this.committed) this.commit(this.settled);
    this.onStopped();
  }
}
