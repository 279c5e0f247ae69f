import type { RecordedEvent, StoreSubscription, SubscribeOptions } from '../event-store.port';

/**
 * A catch-up subscription over the PostgreSQL log: reads batches after its position until the log is
 * exhausted, then waits to be woken (a commit of this process, a notification, the poll timer). A read that
 * fails (the server restarting, a connection cut) is tried again after `retryMs`: the subscription outlives
 * the database's outages; only `onEvents` throwing stops it (`onError`).
 */
export class PostgresSubscription implements StoreSubscription {
  private current: number;
  private stopped = false;
  /** Set by `wake`; a read that began before it may have missed what woke it, so the loop reads again. */
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly read: (after: number, max: number) => Promise<RecordedEvent[]>,
    private readonly options: SubscribeOptions,
    private readonly onStopped: () => void,
    private readonly retryMs: number,
  ) {
    this.current = options.after;
  }

  get position(): number {
    return this.current;
  }

  start(): void {
    this.loop = this.run();
  }

  wake(): void {
    this.woken = true;
    const wake = this.wakeUp;
    this.wakeUp = null;
    wake?.();
  }

  private async run(): Promise<void> {
    const batchSize = this.options.batchSize ?? 500;
    try {
      while (!this.stopped) {
        this.woken = false;
        let events: RecordedEvent[];
        try {
          events = await this.read(this.current, batchSize);
        } catch {
          await this.idle(this.retryMs);
          continue;
        }
        if (this.stopped) break;
        if (events.length === 0) {
          if (!this.woken) await this.idle();
          continue;
        }
        await this.options.onEvents(events);
        this.current = events[events.length - 1].position;
      }
    } catch (error) {
      this.stopped = true;
      this.options.onError?.(error);
    } finally {
      this.onStopped();
    }
  }

  private idle(timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => this.wake(), timeoutMs);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }
}
