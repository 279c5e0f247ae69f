import type { LeaseTerm, Leases } from '@cip/shared/read-store';
import type { Logger } from '@cip/shared/runtime';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

export interface ElectedRoleOptions {
  leases: Leases;
  /** The lease's name: one holder of it in the whole deployment. */
  name: string;
  /** How long a term lasts without renewal; a standby takes over about this long after a holder died. */
  ttlMs: number;
  /** This process's name in the lease (default host, pid and a random suffix). */
  holder?: string;
  /**
   * How long before its term could lapse a holder that could not renew stops its work (default a fifth of
   * `ttlMs`): the room it has to stop before the store may grant the lease to another.
   */
  marginMs?: number;
  /** Starts the work: the lease was granted (a new term, or again after a deposition). */
  onElected(term: LeaseTerm): Promise<void> | void;
  /** Stops the work: the lease was lost, or could not be renewed in time, or the process shuts down. */
  onDeposed(): Promise<void> | void;
  logger?: Logger;
}

export type ElectedRoleState = 'leader' | 'standby';

/**
 * Runs a singleton role on whichever process holds a lease. Every `ttlMs / 3` it acquires the lease (a
 * renewal while it holds it). It calls `onElected` when granted, and `onDeposed` when a renewal is refused,
 * or when no renewal succeeded for `ttlMs - marginMs` since the last one was sent: by then the work has
 * stopped, before the store could grant the lease to another (its ttl runs from when the store received
 * that renewal, which is after it was sent). `stop` stops the work and releases the lease, so a standby takes
 * over at its next attempt instead of after the ttl.
 */
export class ElectedRole {
  readonly holder: string;
  private readonly intervalMs: number;
  private readonly marginMs: number;
  private leading: LeaseTerm | null = null;
  private timer: NodeJS.Timeout | null = null;
  private deadline: NodeJS.Timeout | null = null;
  private stopped = true;
  /** Elections and depositions, one after the other. */
  private transitions: Promise<void> = Promise.resolve();
  private attempting: Promise<void> | null = null;

  constructor(private readonly options: ElectedRoleOptions) {
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.intervalMs = Math.max(1, Math.floor(options.ttlMs / 3));
    this.marginMs = options.marginMs ?? Math.floor(options.ttlMs / 5);
    if (this.marginMs >= options.ttlMs - this.intervalMs)
      throw new Error(`The margin of lease ${options.name} leaves no time to renew it`);
  }

  /** Whether this process holds the lease and runs the role now. */
  get state(): ElectedRoleState {
    return this.leading ? 'leader' : 'standby';
  }

  /** The term this process runs the role in, or null on standby. */
  get term(): LeaseTerm | null {
    return this.leading;
  }

  /** Makes the first attempt (elected by the time it resolves when the lease is free), then keeps trying. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.tick();
  }

  /** Stops the work if it runs, then releases the lease: the standby takes over at once. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.attempting;
    const wasLeader = this.leading !== null;
    await this.depose('shutdown');
    if (!wasLeader) return;
    await this.options.leases
      .release(this.options.name, this.holder)
      .catch((error: unknown) =>
        this.options.logger?.warn({ err: error, lease: this.options.name }, 'lease not released'),
      );
  }

  private async tick(): Promise<void> {
    this.attempting = this.attempt();
    await this.attempting;
    this.attempting = null;
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    const { leases, name, ttlMs, logger } = this.options;
    const sentAt = performance.now();
    let granted: LeaseTerm | null;
    try {
      granted = await bounded(leases.acquire(name, this.holder, ttlMs), this.intervalMs);
    } catch (error) {
      // Not refused: the store did not answer. The term may still run; the deadline decides.
      logger?.warn({ err: error, lease: name }, 'lease not renewed');
      return;
    }
    if (this.stopped) return;
    if (!granted) {
      if (this.leading) await this.depose('refused');
      return;
    }
    // Safe to act on until the earliest moment the store could see the term lapse.
    const safeUntil = sentAt + ttlMs - this.marginMs;
    const left = safeUntil - performance.now();
    if (left <= 0) return;
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = setTimeout(() => void this.depose('not renewed in time'), left);
    this.deadline.unref();
    if (!this.leading) await this.elect(granted);
    else this.leading = granted;
  }

  private elect(term: LeaseTerm): Promise<void> {
    return this.transition(async () => {
      if (this.leading || this.stopped) return;
      this.leading = term;
      this.options.logger?.info(
        { lease: this.options.name, holder: this.holder, fencingToken: term.fencingToken },
        'elected',
      );
      try {
        await this.options.onElected(term);
      } catch (error) {
        this.options.logger?.error({ err: error, lease: this.options.name }, 'elected role failed to start');
        await this.stepDown();
        await this.options.leases.release(this.options.name, this.holder).catch(() => undefined);
      }
    });
  }

  private depose(reason: string): Promise<void> {
    return this.transition(async () => {
      if (!this.leading) return;
      this.options.logger?.warn({ lease: this.options.name, holder: this.holder, reason }, 'deposed');
      await this.stepDown();
    });
  }

  private async stepDown(): Promise<void> {
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = null;
    this.leading = null;
    try {
      await this.options.onDeposed();
    } catch (error) {
      this.options.logger?.error({ err: error, lease: this.options.name }, 'elected role failed to stop');
    }
  }

  private transition(step: () => Promise<void>): Promise<void> {
    this.transitions = this.transitions.then(step);
    return this.transitions;
  }
}

/** The store's answer, or a rejection after `timeoutMs`: a hung connection must not hold the next attempt. */
function bounded<T>(answer: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    answer,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}
