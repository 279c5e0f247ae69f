import type { Clock, Logger } from '@cip/shared/runtime';

/**
 * A sweep run on a timer and whenever the clock moves (a test's ManualClock, the split topology's FileClock):
 * one sweep at a time, a tick during a long sweep joins it, a move of the clock during one starts another
 * after it. Subclasses say what a sweep does (`sweep`: how many things it acted on); `runDue()` runs one now.
 */
export abstract class PeriodicSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopWatchingClock: (() => void) | null = null;
  private clockMoved = false;

  protected constructor(
    private readonly periodic: {
      what: string;
      intervalMs: number;
      logger: Pick<Logger, 'warn'>;
      clock: Clock;
    },
  ) {}

  /** One sweep: how many things it acted on. */
  protected abstract sweep(): Promise<number>;

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweepInBackground(), this.periodic.intervalMs);
    this.timer.unref();
    this.stopWatchingClock =
      this.periodic.clock.onChange?.(() => {
        // A sweep already running looked at the time before the move: another one follows it.
        if (this.running) this.clockMoved = true;
        else this.sweepInBackground();
      }) ?? null;
    this.sweepInBackground();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopWatchingClock?.();
    this.stopWatchingClock = null;
    this.clockMoved = false;
    await this.running?.catch(() => undefined);
  }

  /** Runs a sweep now (or joins the one running); how many things it acted on. */
  runDue(): Promise<number> {
    this.running ??= this.sweep().finally(() => {
      this.running = null;
      if (this.clockMoved && this.timer) {
        this.clockMoved = false;
        this.sweepInBackground();
      }
    });
    return this.running;
  }

  private sweepInBackground(): void {
    this.runDue().catch((error) =>
      this.periodic.logger.warn({ err: error }, `${this.periodic.what} sweep failed`),
    );
  }
}
