import { readFileSync, renameSync, watch, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Time is injected so that expiries, idempotency retention and retries are testable without waiting.
 * Domain code never reads the clock: services read it and put the time into commands.
 */
export interface Clock {
  now(): Date;
  /**
   * Calls `listener` whenever the time jumps (a test clock moved): what sweeps on a timer use to look again
   * at once. Absent on clocks that only flow (the system clock). Returns the unsubscription.
   */
  onChange?(listener: () => void): () => void;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests and simulations. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
    this.share();
  }

  set(at: Date | string): void {
    this.current = new Date(at).getTime();
    this.share();
  }

  private sharedThrough: string | null = null;

  /**
   * Writes this clock's time to `file` now and after every move, for the processes of a split topology to
   * read as their clock (`TEST_CLOCK_FILE`, `FileClock`): one standing test clock across processes.
   */
  shareThrough(file: string): this {
    this.sharedThrough = file;
    this.share();
    return this;
  }

  private share(): void {
    if (!this.sharedThrough) return;
    // Written whole then renamed: a reader never sees half a time.
    const partial = `${this.sharedThrough}.${process.pid}.tmp`;
    writeFileSync(partial, new Date(this.current).toISOString());
    renameSync(partial, this.sharedThrough);
  }
}

/**
 * A test clock read from a file another process moves (a ManualClock's `shareThrough`): it stands still
 * between moves, as a ManualClock does, and tells its listeners when it jumps. For the e2e suite on the split
 * topology only (TEST_CLOCK_FILE); the time is read from the file on every `now()`, exact whatever the order in
 * which processes notice a move, which is cheap enough for tests and never used otherwise.
 */
export class FileClock implements Clock {
  constructor(private readonly file: string) {
    if (Number.isNaN(this.read())) throw new Error(`TEST_CLOCK_FILE ${file} does not hold an ISO time`);
  }

  private read(): number {
    return new Date(readFileSync(this.file, 'utf8').trim()).getTime();
  }

  now(): Date {
    return new Date(this.read());
  }

  onChange(listener: () => void): () => void {
    // The directory is watched: the file is replaced by a rename on every move.
    const watcher = watch(dirname(this.file), (_event, name) => {
      if (name === basename(this.file)) listener();
    });
    watcher.unref();
    return () => watcher.close();
  }
}

/** The clock a process runs on: the system's, or the test clock file TEST_CLOCK_FILE names. */
export const clockFromEnvironment = (env: NodeJS.ProcessEnv = process.env): Clock =>
  env.TEST_CLOCK_FILE ? new FileClock(env.TEST_CLOCK_FILE) : systemClock;
