import { Environment, ENVIRONMENTS } from '@cip/shared/contracts';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import { PeriodicSweep } from './periodic-sweep';

const DUE_PAGE = 100;

/**
 * A periodic sweep over what fell due, in both environments: a context says which ids are due (read from a
 * read model it has settled) and how to expire one (checked again on its stream, so a sweep acting on a
 * stale candidate changes nothing). Due items live in the store, so what fell due while the platform was
 * down is handled by the first sweep after a start. One sweep at a time: a tick during a long sweep joins
 * it rather than reading the same deadlines. Time is the injected clock: tests move a ManualClock and call
 * `runDue()`; a clock that jumps (the split topology's test clock, `FileClock`) starts a sweep at once. Each
 * completed sweep sets `deadline_sweep_clock_seconds` to the time it looked at.
 */
export abstract class DeadlineSweep extends PeriodicSweep {
  protected constructor(
    private readonly sweepOf: {
      what: string;
      intervalMs: number;
      logger: Logger;
      clock: Clock;
      metrics?: PlatformMetrics;
      /**
       * The deadline read model the candidates come from (its documents keep `expiresAt` only while
       * something is due on them) and the wait for it to catch up with the log.
       */
      deadlines?: {
        collection: string;
        readStore(environment: Environment): ReadStore;
        settle(environment: Environment): Promise<void>;
      };
    },
  ) {
    super(sweepOf);
  }

  /** Waits until the read model the candidates come from has caught up with the log. */
  protected settle(environment: Environment): Promise<void> {
    return this.deadlineModel().settle(environment);
  }

  /**
   * The ids of the deadline read model's documents whose `expiresAt` has passed `now` (the time the sweep
   * looks at), earliest first. The store reads them by an index on `expiresAt`: a sweep costs what has
   * fallen due, never the number of pending ones (at 500 challenges a second with a 5-minute deadline,
   * 150,000 wait at once).
   */
  protected async due(environment: Environment, now: Date): Promise<string[]> {
    const { collection, readStore } = this.deadlineModel();
    const due: string[] = [];
    let after: { expiresAt: string; id: string } | undefined;
    for (;;) {
      const page = await readStore(environment).expiredBy(collection, now.toISOString(), {
        after,
        limit: DUE_PAGE,
      });
      due.push(...page.map((doc) => doc.id));
      if (page.length < DUE_PAGE) return due;
      after = page[page.length - 1];
    }
  }
  /** Expires one if it is still due; whether it did. */
  protected abstract expireIfDue(environment: Environment, id: string): Promise<boolean>;

  private deadlineModel(): NonNullable<(typeof this.sweepOf)['deadlines']> {
    if (!this.sweepOf.deadlines) throw new Error(`${this.sweepOf.what}: no deadline read model given`);
    return this.sweepOf.deadlines;
  }

  protected async sweep(): Promise<number> {
    const at = this.sweepOf.clock.now();
    let expired = 0;
    for (const environment of ENVIRONMENTS) {
      await this.settle(environment);
      for (const id of await this.due(environment, at)) {
        if (await this.expireIfDue(environment, id)) expired++;
      }
    }
    this.sweepOf.metrics?.deadlineSweepTime.set({ sweep: this.sweepOf.what }, at.getTime() / 1000);
    return expired;
  }
}
