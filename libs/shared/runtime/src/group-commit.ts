interface Pending<I, O> {
  item: I;
  resolve(outcome: O): void;
  reject(error: unknown): void;
}

/**
 * Group commit for a synchronous store (better-sqlite3): work submitted while a commit is pending is
 * queued and committed together on the next turn of the event loop by one call of `commit` (one
 * transaction, so one fsync acknowledges all of it). Each submission settles only once that call has
 * returned, that is once its transaction is durable: with its own outcome (an `Error` outcome rejects that
 * submission alone), or, when the whole call throws, with that error (nothing of the batch was written).
 *
 * Hand-written: a queue of a few lines that the event store and the card vault share, tied to a synchronous
 * commit so that nothing is acknowledged before its transaction returned.
 */
export class GroupCommit<I, O> {
  private queue: Pending<I, O>[] = [];
  private scheduled = false;

  constructor(
    /** Writes the batch in one transaction and returns one outcome per item, in order. */
    private readonly commit: (items: I[]) => (O | Error)[],
    /** Called after each successful commit, once its submissions are settled (metrics, wake-ups). */
    private readonly committed?: (items: I[]) => void,
  ) {}

  /** How many submissions wait for the next commit. */
  get pending(): number {
    return this.queue.length;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits what is queued now (the next turn's commit then finds nothing): a store's close calls it. */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const items = batch.map((pending) => pending.item);
    let outcomes: (O | Error)[];
    try {
      outcomes = this.commit(items);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof Error) pending.reject(outcome);
      else pending.resolve(outcome);
    });
    this.committed?.(items);
  }
}
