import type { EventStore } from '../event-store.port';
import { RELAY_CHECKPOINT_STREAM } from './kafka-relay';

const CHECKPOINT_PAGE = 1000;
const PENDING_PAGE = 100;
const POLL_MS = 50;

/**
 * How far the relay has produced a store's log to Kafka, read from the checkpoints it appends to that store
 * (KafkaRelay): the first half of read-your-writes in the distributed runtime. An event appended to
 * EventStoreDB is on Kafka only once the relay has produced it, so a consumer's drain first waits here for
 * the relay to pass the log head of the moment, then for the partition ends (KafkaMessageBus).
 */
export class RelayWatermark {
  private checkpointRevision = -1;
  private relayed = 0;
  private reading: Promise<number> | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly checkpointStream = RELAY_CHECKPOINT_STREAM,
    private readonly pollMs = POLL_MS,
  ) {}

  /** The global position up to which the relay has produced and checkpointed the log. */
  relayedPosition(): Promise<number> {
    // Concurrent drains (one per consumer group of a list's settle) share one read.
    this.reading ??= this.readCheckpoints().finally(() => (this.reading = null));
    return this.reading;
  }

  /**
   * Resolves once the relay has produced everything in the log at the time of the call (the caller's own
   * writes included); rejects at `deadline` (epoch ms) if it has not.
   */
  async waitForRelay(deadline: number): Promise<void> {
    const head = await this.store.headPosition();
    for (;;) {
      if (await this.relayedPast(head)) return;
      if (Date.now() >= deadline) {
        throw new Error(`The relay did not produce ${this.store.name} up to position ${head} in time`);
      }
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, Math.min(this.pollMs, deadline - Date.now()))),
      );
    }
  }

  private async relayedPast(head: number): Promise<boolean> {
    const relayed = await this.relayedPosition();
    if (relayed >= head) return true;
    // The relay's checkpoint covers the batch before it, never the checkpoint itself: when all that follows
    // its position up to the head is its own checkpoints, nothing is left to produce (and it writes no
    // checkpoint for a batch of checkpoints, so its position would never reach the head).
    const pending = await this.store.readAll({ after: relayed, maxCount: PENDING_PAGE });
    if (pending.some((event) => event.position <= head && event.streamId !== this.checkpointStream))
      return false;
    return pending.length < PENDING_PAGE || pending[pending.length - 1].position >= head;
  }

  private async readCheckpoints(): Promise<number> {
    for (;;) {
      const page = await this.store.readStream(this.checkpointStream, {
        fromRevision: this.checkpointRevision + 1,
        maxCount: CHECKPOINT_PAGE,
      });
      if (page.length === 0) return this.relayed;
      const last = page[page.length - 1];
      if (typeof last.data.position === 'number') this.relayed = last.data.position;
      this.checkpointRevision = last.revision;
      if (page.length < CHECKPOINT_PAGE) return this.relayed;
    }
  }
}
