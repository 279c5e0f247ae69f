import type { EventStore, RecordedEvent, StoreSubscription } from './event-store.port';

/**
 * A small read model folded in memory from a whole store's log (the control store: distributors, staff,
 * the audit trail) and kept live by a subscription from where the fold stands. `catchUp` reads whatever the
 * log holds beyond that, so a reader that must see a write made a moment ago by another process (the CLI)
 * calls it first. Each event is folded once, in log order, whether the subscription or a catch-up brought it.
 * Rebuilt from the log on every start: nothing in it is a source of truth.
 */
export abstract class LiveLogFold {
  private position = 0;
  private subscription: StoreSubscription | null = null;

  constructor(protected readonly store: EventStore) {}

  /** Folds one event of the log (every stream: skip the ones of no interest). */
  protected abstract fold(recorded: RecordedEvent): void;

  async start(): Promise<void> {
    await this.catchUp();
    this.subscription = this.store.subscribeToAll({
      after: this.position,
      onEvents: async (events) => this.apply(events),
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }

  /** Reads whatever the log holds beyond what this fold has seen. */
  async catchUp(): Promise<void> {
    for (;;) {
      const events = await this.store.readAll({ after: this.position, maxCount: 1000 });
      if (events.length === 0) return;
      this.apply(events);
    }
  }

  private apply(events: RecordedEvent[]): void {
    for (const recorded of events) {
      if (recorded.position <= this.position) continue;
      this.position = recorded.position;
      this.fold(recorded);
    }
  }
}
