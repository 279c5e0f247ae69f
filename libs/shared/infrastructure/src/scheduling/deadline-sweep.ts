import { Environment, ENVIRONMENTS } from '@cip/shared/contracts';
import type { FilterValue, ReadDocument, ReadStore } from '@cip/shared/read-store';
import type { Logger } from '@cip/shared/runtime';

const DUE_PAGE = 100;

/**
 * A periodic sweep over what fell due, in both environments: a context says which ids are due (read from a
 * read model it has settled) and how to expire one (checked again on its stream, so a sweep acting on a
 * stale candidate changes nothing). Due items live in the store, so what fell due while the platform was
 * down is handled by the first sweep after a start. One sweep at a time: a tick during a long sweep joins
 * it rather than reading the same deadlines. Time is the caller's injected clock: tests move a ManualClock
 * and call `runDue()`.
 */
export abstract class DeadlineSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  protected constructor(private readonly sweepOf: { what: string; intervalMs: number; logger: Logger }) {}

  /** Waits until the read model the candidates come from has caught up with the log. */
  protected abstract settle(environment: Environment): Promise<void>;
  /** The ids due now in `environment`. */
  protected abstract due(environment: Environment): Promise<string[]>;
  /** Expires one if it is still due; whether it did. */
  protected abstract expireIfDue(environment: Environment, id: string): Promise<boolean>;

  start(): void {
    if (this.timer) return;
    const sweep = () => {
      this.runDue().catch((error) =>
        this.sweepOf.logger.warn({ err: error }, `${this.sweepOf.what} sweep failed`),
      );
    };
    this.timer = setInterval(sweep, this.sweepOf.intervalMs);
    this.timer.unref();
    sweep();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Expires everything due now, in both environments; returns how many it expired. */
  runDue(): Promise<number> {
    this.running ??= this.sweep().finally(() => (this.running = null));
    return this.running;
  }

  /**
   * The read model's candidates whose `expiresAt` has passed `now`, oldest first (the sweeps' one way to read
   * them). `inDeadlineOrder`: the collection's creation order is its deadline order (one deadline for all), so
   * the read stops at the first one not yet due.
   */
  protected async pastDeadline(
    readStore: ReadStore,
    collection: string,
    filter: Record<string, FilterValue>,
    now: string,
    options: { inDeadlineOrder?: boolean } = {},
  ): Promise<string[]> {
    const due: string[] = [];
    for (let page = 0; ; page++) {
      const { items, hasMore } = await readStore.find<
        ReadDocument & { id: string; expiresAt?: string | null }
      >(collection, { filter, sort: { field: 'createdAt', direction: 'asc' }, page, limit: DUE_PAGE });
      for (const item of items) {
        if (item.expiresAt && item.expiresAt <= now) due.push(item.id);
        else if (options.inDeadlineOrder) return due;
      }
      if (!hasMore) return due;
    }
  }

  private async sweep(): Promise<number> {
    let expired = 0;
    for (const environment of ENVIRONMENTS) {
      await this.settle(environment);
      for (const id of await this.due(environment)) {
        if (await this.expireIfDue(environment, id)) expired++;
      }
    }
    return expired;
  }
}
