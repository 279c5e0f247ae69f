import type { RecordedEvent, StoreSubscription, SubscribeOptions } from '../event-store.port';

/** At most this many new events after a quiet spell are read at once, without coalescing. */
const QUIET_EVENTS = 8;

/**
 * A catch-up subscription over a log that can be read synchronously: it reads batches after its position
 * until the log is exhausted, then waits to be woken (`wake`): by the store after a commit of this process,
 * or when the store's head watcher sees events appended by another process sharing the file.
 */
export class LogSubscription implements StoreSubscription {
  private current: number;
  private stopped = false;
  private wakeUp: ((head: number) => void) | null = null;
  private loop: Promise<void> = Promise.resolve();
  /** When the last batch was handled (performance.now()). */
  private lastBatchAt = -Infinity;

  constructor(
    private readonly read: (after: number, max: number) => RecordedEvent[],
    private readonly options: SubscribeOptions,
    private readonly onStopped: () => void,
    /**
     * After a wake-up, wait this long so that commits arriving meanwhile are handled in the same batch, unless
     * the log was quiet: the last batch ended at least this long ago and the wake-up brings a few events
     * (QUIET_EVENTS) at most. Coalescing pays under load (fewer, larger batches); for an isolated event (a
     * 3DS challenge, whose express webhook waited for it) it was only latency.
     */
    private readonly coalesceMs = 0,
  ) {
    this.current = options.after;
  }

  get position(): number {
    return this.current;
  }

  start(): void {
    this.loop = this.run();
  }

  /**
   * New events may be there (a commit, or the head moved): an idle subscription reads again. `head`: the
   * log's head as the caller knows it (unknown: treated as far ahead).
   */
  wake(head = Number.POSITIVE_INFINITY): void {
    const wake = this.wakeUp;
    this.wakeUp = null;
    wake?.(head);
  }

  private async run(): Promise<void> {
    const batchSize = this.options.batchSize ?? 500;
    try {
      while (!this.stopped) {
        const events = this.read(this.current, batchSize);
        if (events.length === 0) {
          await this.idle();
          continue;
        }
        await this.options.onEvents(events);
        this.current = events[events.length - 1].position;
        this.lastBatchAt = performance.now();
      }
    } catch (error) {
      this.stopped = true;
      this.options.onError?.(error);
    } finally {
      this.onStopped();
    }
  }

  /** Set synchronously after a read found nothing, so no wake-up can fall between the read and the wait. */
  private idle(): Promise<void> {
    return new Promise((resolve) => {
      this.wakeUp = (head) => {
        const quiet =
          performance.now() - this.lastBatchAt >= this.coalesceMs && head - this.current <= QUIET_EVENTS;
        if (this.coalesceMs > 0 && !quiet && !this.stopped) setTimeout(resolve, this.coalesceMs);
        else resolve();
      };
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }
}
