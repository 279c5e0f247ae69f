import type { Environment } from '@cip/shared/contracts';
import { within } from '@cip/shared/testing';
import { type Clock, createLogger, FileClock, ManualClock, PlatformMetrics } from '@cip/shared/runtime';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeadlineSweep } from './deadline-sweep';

/** Deadlines in memory; each sweep is recorded with the time it looked at. */
class Deadlines extends DeadlineSweep {
  readonly deadlines = new Map<string, number>();
  readonly expired: string[] = [];
  readonly sweptAt: number[] = [];
  /** Set by a test to hold a sweep half-way (the clock moves under it); `onHeld` is told it got there. */
  hold: Promise<void> | null = null;
  onHeld: (() => void) | null = null;
  private swept: (() => void)[] = [];

  constructor(
    private readonly clock: Clock,
    metrics: PlatformMetrics,
  ) {
    super({ what: 'Test expiry', intervalMs: 3_600_000, logger: createLogger('silent'), clock, metrics });
  }

  /** Resolves after the next sweep that looks at `at` or later. */
  sweepAtOrAfter(at: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.sweptAt.some((t) => t >= at)) resolve();
        else this.swept.push(check);
      };
      check();
    });
  }

  protected override settle(): Promise<void> {
    return Promise.resolve();
  }

  protected override async due(environment: Environment): Promise<string[]> {
    if (environment !== 'sandbox') return [];
    const now = this.clock.now().getTime();
    if (this.hold) this.onHeld?.();
    await this.hold;
    this.sweptAt.push(now);
    for (const notify of this.swept.splice(0)) notify();
    return [...this.deadlines].filter(([, at]) => at <= now).map(([id]) => id);
  }

  protected async expireIfDue(_environment: Environment, id: string): Promise<boolean> {
    this.deadlines.delete(id);
    this.expired.push(id);
    return true;
  }
}

describe('DeadlineSweep on a test clock shared through a file (the split topology e2e suite)', () => {
  let dir: string;
  let test: ManualClock;
  let sweep: Deadlines;
  let clock: FileClock;
  const metrics = new PlatformMetrics(false);
  const START = Date.parse('2026-03-01T09:00:00.000Z');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cip-clock-'));
    mkdirSync(join(dir, 'test-clock'));
    test = new ManualClock(new Date(START)).shareThrough(join(dir, 'test-clock', 'now'));
    clock = new FileClock(join(dir, 'test-clock', 'now'));
    sweep = new Deadlines(clock, metrics);
  });
  afterEach(async () => {
    await sweep.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const gauge = async () =>
    (await metrics.registry.getSingleMetric('deadline_sweep_clock_seconds')!.get()).values.find(
      (v) => v.labels.sweep === 'Test expiry',
    )?.value;

  it('reads the time the test set, standing still between moves', () => {
    const clock = new FileClock(join(dir, 'test-clock', 'now'));
    expect(clock.now().getTime()).toBe(START);
    test.advance(1);
    expect(clock.now().getTime()).toBe(START + 1);
  });

  it('refuses a file that holds no time', () => {
    expect(() => new FileClock(join(dir, 'missing'))).toThrow();
  });

  it('sweeps when the clock moves, expiring only what is due by then, and reports the time it looked at', async () => {
    sweep.deadlines.set('due-at-14-days', START + 14 * 86_400_000);
    sweep.start();
    await within(sweep.sweepAtOrAfter(START), { what: 'the first sweep' });

    test.advance(14 * 86_400_000 - 1);
    await within(sweep.sweepAtOrAfter(START + 14 * 86_400_000 - 1), { what: 'a sweep after the move' });
    expect(sweep.expired).toEqual([]);

    test.advance(1);
    await within(sweep.sweepAtOrAfter(START + 14 * 86_400_000), { what: 'a sweep at the deadline' });
    await sweep.runDue();
    expect(sweep.expired).toEqual(['due-at-14-days']);
    expect(await gauge()).toBe((START + 14 * 86_400_000) / 1000);
  });

  it('sweeps again after a sweep that was running when the clock moved', async () => {
    // A clock told to move by hand, once: the file watcher may report a move more than once.
    let now = START;
    const listeners: (() => void)[] = [];
    const moving: Clock = {
      now: () => new Date(now),
      onChange: (listener) => (listeners.push(listener), () => undefined),
    };
    const held = new Deadlines(moving, metrics);
    held.deadlines.set('due-in-1-day', START + 86_400_000);
    let release!: () => void;
    held.hold = new Promise((resolve) => (release = resolve));
    const reachedHold = new Promise<void>((resolve) => (held.onHeld = resolve));
    held.start();
    // The first sweep read the time before the move and is held; the move comes during it.
    await within(reachedHold, { what: 'the first sweep held', timeoutMs: 5_000 });
    now += 86_400_000;
    for (const listener of listeners) listener();
    held.hold = null;
    release();
    await within(held.sweepAtOrAfter(START + 86_400_000), {
      what: 'the sweep that follows the held one',
      timeoutMs: 5_000,
    });
    await held.runDue();
    expect(held.expired).toEqual(['due-in-1-day']);
    await held.stop();
  });
});
