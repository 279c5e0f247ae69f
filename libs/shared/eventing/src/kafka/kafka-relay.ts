import { InterruptibleBackOff } from '@cip/shared/runtime';
import { randomUUID } from 'node:crypto';
import {
  EventData,
  EventStore,
  RecordedEvent,
  StoreSubscription,
  WrongExpectedRevisionError,
} from '../event-store.port';
import { TopicPartitionsMismatchError, type KafkaMessageBus } from './kafka-message-bus';

/** The stream, in the relayed store, where the relay records how far it got. */
export const RELAY_CHECKPOINT_STREAM = 'relaycheckpoint-kafka';

export interface KafkaRelayOptions {
  store: EventStore;
  bus: KafkaMessageBus;
  /** Default {@link RELAY_CHECKPOINT_STREAM}. Its events are never relayed. */
  checkpointStream?: string;
  /** Upper bound of events produced (and checkpointed) together; default 500. */
  batchSize?: number;
  /**
   * Producing or checkpointing failed; the same batch is tried again after a back-off. Attempt 0: Kafka could
   * not be reached for the partition check at the start (the relay starts, its first batch checks).
   */
  onRetry?(error: unknown, attempt: number): void;
  /**
   * The relay stopped on an error it cannot retry: another relay writes the same checkpoint stream, or a
   * topic it produces to has another partition count than the bus's (TopicPartitionsMismatchError).
   */
  onError?(error: unknown): void;
  /** A batch is produced and checkpointed up to this global position. */
  onProgress?(position: number): void;
}

const CHECKPOINT_PAGE = 1000;

/** How a relay is doing, as the relay process's /health reports it. */
export interface KafkaRelayStatus {
  /** `retrying`: producing or checkpointing the batch in hand keeps failing; `stopped`: it stopped on an error. */
  state: 'running' | 'retrying' | 'stopped';
  /** Global position produced and checkpointed. */
  position: number;
  /** Failed attempts in a row on the batch in hand (0 once it is produced and checkpointed). */
  consecutiveRetries: number;
}

/**
 * Tails an event store's global log and produces every event to the Kafka topic of its stream's category,
 * keyed by its stream id: the only path from the store to Kafka (never an after-commit hook). The position
 * reached is appended to a checkpoint stream of the same store after each produced batch, and read back on
 * start, so a restart resends at most the batch that was in flight (at-least-once: produce, then record).
 * Checkpoints are appended at the revision this relay last wrote: a second relay on the same store makes
 * one of them stop instead of both producing everything twice.
 *
 * A topic of the bus whose partition count is not the configured one would send a stream's next events to
 * another partition than its earlier ones (consumers would read them out of order): the relay refuses to
 * start when one exists, and stops (`onError`, status `stopped`) when it meets one later, rather than retry.
 * Kafka unreachable at the start defers that check to the first batch (produced with retries as usual).
 */
export class KafkaRelay {
  private readonly checkpointStream: string;
  private subscription: StoreSubscription | null = null;
  private checkpointRevision = -1;
  private stopping = false;
  private failure: unknown = undefined;
  private consecutiveRetries = 0;
  private readonly backOff = new InterruptibleBackOff();
  /** The bus's topics were checked against its partition count (at the start, or before the first batch). */
  private partitionsChecked = false;

  constructor(private readonly options: KafkaRelayOptions) {
    this.checkpointStream = options.checkpointStream ?? RELAY_CHECKPOINT_STREAM;
  }

  /** Global position up to which this relay instance has produced and checkpointed the log. */
  get position(): number {
    return this.subscription?.position ?? 0;
  }

  async start(): Promise<void> {
    if (this.subscription || this.stopping) throw new Error('A relay starts once');
    try {
      await this.options.bus.checkPartitions();
      this.partitionsChecked = true;
    } catch (error) {
      if (error instanceof TopicPartitionsMismatchError) {
        throw new Error(`Kafka relay refuses to start: ${error.message}`, { cause: error });
      }
      // Kafka unreachable: the relay starts and retries as it would on a batch; the first batch checks.
      this.options.onRetry?.(error, 0);
    }
    const after = await this.readCheckpoint();
    this.subscription = this.options.store.subscribeToAll({
      after,
      batchSize: this.options.batchSize ?? 500,
      onEvents: (events) => this.relay(events),
      onError: (error) => {
        if (this.stopping) return;
        this.failure = error;
        this.options.onError?.(error);
      },
    });
  }

  /** Failing after this many attempts in a row on one batch: `retrying` (not ready) rather than `running`. */
  static readonly RETRYING_AFTER_ATTEMPTS = 5;

  status(): KafkaRelayStatus {
    return {
      state:
        this.failure !== undefined
          ? 'stopped'
          : this.consecutiveRetries >= KafkaRelay.RETRYING_AFTER_ATTEMPTS
            ? 'retrying'
            : 'running',
      position: this.position,
      consecutiveRetries: this.consecutiveRetries,
    };
  }

  /**
   * Events of the log past the relay's position, up to `cap` (its lag, in events). Read forward from the
   * position: cheap while the relay keeps up, and bounded by `cap` when it does not. Its own checkpoints are
   * not counted (they are never produced).
   */
  async backlog(cap = 1000): Promise<number> {
    const events = await this.options.store.readAll({ after: this.position, maxCount: cap });
    return events.filter((event) => event.streamId !== this.checkpointStream).length;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.backOff.interrupt();
    await this.subscription?.stop();
  }

  private async readCheckpoint(): Promise<number> {
    let position = 0;
    for (;;) {
      const page = await this.options.store.readStream(this.checkpointStream, {
        fromRevision: this.checkpointRevision + 1,
        maxCount: CHECKPOINT_PAGE,
      });
      if (page.length === 0) return position;
      const last = page[page.length - 1];
      if (typeof last.data.position !== 'number') {
        throw new Error(`Checkpoint ${last.revision} of ${this.checkpointStream} has no position`);
      }
      position = last.data.position;
      this.checkpointRevision = last.revision;
      if (page.length < CHECKPOINT_PAGE) return position;
    }
  }

  private async relay(events: RecordedEvent[]): Promise<void> {
    const outgoing = events.filter((event) => event.streamId !== this.checkpointStream);
    // A batch of nothing but our own checkpoints must not write another one (that would never end).
    if (outgoing.length === 0) return;
    await this.retrying(async () => {
      if (!this.partitionsChecked) {
        await this.options.bus.checkPartitions();
        this.partitionsChecked = true;
      }
      await this.options.bus.publishRecorded(outgoing);
    });
    const position = events[events.length - 1].position;
    // Built once: a retried append carries the same event id, which EventStoreDB recognises as a replay.
    const checkpoint: EventData = {
      type: 'RelayCheckpointed',
      data: { position },
      metadata: { eventId: randomUUID(), occurredAt: new Date().toISOString(), schemaVersion: 1 },
    };
    await this.retrying(async () => {
      const result = await this.options.store.append(this.checkpointStream, [checkpoint], {
        expectedRevision: this.checkpointRevision < 0 ? 'no_stream' : this.checkpointRevision,
      });
      this.checkpointRevision = result.nextRevision;
    });
    this.options.onProgress?.(position);
  }

  /**
   * Runs `operation` until it succeeds; a revision conflict, a topic with another partition count or a stop
   * ends the relay instead.
   */
  private async retrying(operation: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await operation();
        this.consecutiveRetries = 0;
        return;
      } catch (error) {
        if (
          error instanceof WrongExpectedRevisionError ||
          error instanceof TopicPartitionsMismatchError ||
          this.stopping
        ) {
          throw error;
        }
        this.consecutiveRetries = attempt;
        this.options.onRetry?.(error, attempt);
        await this.backOff.wait(Math.min(5000, 100 * 2 ** Math.min(attempt, 6)));
        if (this.stopping) throw error;
      }
    }
  }
}
