/**
 * Runs tasks one after another per key, in call order, and tasks of different keys concurrently; a failed
 * task does not stop the ones queued after it. Holds nothing for a key with no task queued (a busy key
 * costs one promise chain, an idle one nothing), so it suits unbounded key spaces (one key per
 * transaction). In-process only: it orders what one process does, not what several do.
 */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task queued or running (for tests and metrics). */
  get busyKeys(): number {
    return this.tails.size;
  }
}
