import type { Environment } from '@cip/shared/contracts';
import type { RecordedEvent } from '@cip/shared/eventing';
import type { Clock, Logger } from '@cip/shared/runtime';
import { Counter, Gauge, Registry } from 'prom-client';

// ---------------------------------------------------------------------------------------------------
// The withdrawal payout runner. The withdrawal saga hands it each requested withdrawal and moves on, so
// a payout that keeps failing (RPC node down, receipt time-out) never holds up the consumer group or the
// withdrawals behind it. Each payout runs on its own: when it throws it is tried again after a capped,
// jittered exponential back-off on the injected clock. Nothing here needs to be durable: a withdrawal
// stays pending on its wallet stream (and in the transactions read model) until its outcome is
// recorded, and the pending ones are handed over again on start. A payout is idempotent per withdrawal
// id; the runner also never runs two attempts of one withdrawal at once.
// ---------------------------------------------------------------------------------------------------

export interface PayoutRunnerDependencies {
  /** Pays out a requested withdrawal and records its outcome; throws when that must be tried again. */
  execute(environment: Environment, requested: RecordedEvent): Promise<void>;
  /** The `WithdrawalRequested` events of the withdrawals still pending, once the read model is caught up. */
  pending(environment: Environment): Promise<RecordedEvent[]>;
  clock: Clock;
  logger: Logger;
  metrics: PayoutMetrics;
  /** In [0, 1); the share of a back-off kept as jitter. */
  random?: () => number;
}

export interface BackOff {
  baseMs: number;
  maxMs: number;
}

/** 1 s, 2 s, 4 s ... up to 5 minutes between attempts: an RPC outage of hours costs a few hundred tries. */
export const PAYOUT_BACK_OFF: BackOff = { baseMs: 1_000, maxMs: 300_000 };

/**
 * The pause before attempt `failures + 1`: exponential, capped, with "equal jitter" (between half and
 * all of it) so that payouts failing together do not retry in lockstep against a recovering node.
 */
export function payoutRetryDelayMs(failures: number, backOff: BackOff, random: number): number {
  const ceiling = Math.min(backOff.maxMs, backOff.baseMs * 2 ** Math.min(failures - 1, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

export class PayoutMetrics {
  readonly attempts: Counter<'environment' | 'result'>;
  readonly pending: Gauge<'environment'>;

  constructor(registry: Registry) {
    this.attempts = new Counter({
      name: 'wallet_payout_attempts_total',
      help: 'Withdrawal payout attempts: recorded (confirmed or rejected) or failed (retried after a back-off)',
      labelNames: ['environment', 'result'] as const,
      registers: [registry],
    });
    this.pending = new Gauge({
      name: 'wallet_payouts_pending',
      help: 'Withdrawals handed to the payout runner whose outcome is not recorded yet',
      labelNames: ['environment'] as const,
      registers: [registry],
    });
  }
}

/** A unit of work the runner retries: one withdrawal's payout, or resuming an environment's pending ones. */
interface Job {
  key: string;
  environment: Environment;
  /** What the logs name it by (no amounts, addresses or transactions). */
  subject: { withdrawalId: string } | { resume: true };
  run(): Promise<void>;
  failures: number;
  /** When the next attempt is due (ms on the injected clock), or null while one is running. */
  dueAt: number | null;
}

const MAX_REASON_LENGTH = 200;

/** The first line of an error, short: RPC client errors carry request details (urls) on later lines. */
const reasonOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, MAX_REASON_LENGTH);

export class WithdrawalPayouts {
  private readonly jobs = new Map<string, Job>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly deps: PayoutRunnerDependencies,
    private readonly backOff: BackOff = PAYOUT_BACK_OFF,
  ) {}

  /** Pays out a requested withdrawal in the background; a withdrawal already in hand is not taken twice. */
  submit(environment: Environment, requested: RecordedEvent): void {
    const { withdrawalId } = requested.data as { withdrawalId: string };
    const added = this.add({
      key: `${environment}/${withdrawalId}`,
      environment,
      subject: { withdrawalId },
      run: () => this.deps.execute(environment, requested),
    });
    if (added) this.deps.metrics.pending.inc({ environment });
  }

  /** Hands over again the withdrawals of an environment still pending (on start). */
  resume(environment: Environment): void {
    this.add({
      key: `${environment}/resume`,
      environment,
      subject: { resume: true },
      run: async () => {
        const pending = await this.deps.pending(environment);
        for (const requested of pending) this.submit(environment, requested);
        if (pending.length > 0)
          this.deps.logger.info({ environment, pending: pending.length }, 'withdrawal payouts resumed');
      },
    });
  }

  /** Starts the attempts whose back-off is over on the injected clock. */
  runDue(): void {
    const now = this.deps.clock.now().getTime();
    for (const job of this.jobs.values()) if (job.dueAt !== null && job.dueAt <= now) this.start(job);
  }

  /** Resolves once no attempt is running (those waiting for their back-off do not count): tests, shutdown. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Payouts not yet recorded, running or waiting for a retry. */
  get backlog(): number {
    return [...this.jobs.values()].filter((job) => 'withdrawalId' in job.subject).length;
  }

  /** Starts nothing more and lets the running attempts finish; what is left stays pending for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }

  // -------------------------------------------------------------------------------------------------

  private add(job: Omit<Job, 'failures' | 'dueAt'>): boolean {
    if (this.stopped || this.jobs.has(job.key)) return false;
    const added: Job = { ...job, failures: 0, dueAt: null };
    this.jobs.set(job.key, added);
    this.start(added);
    return true;
  }

  private start(job: Job): void {
    if (this.stopped) return;
    job.dueAt = null;
    const attempt = this.attempt(job).finally(() => this.running.delete(attempt));
    this.running.add(attempt);
  }

  private async attempt(job: Job): Promise<void> {
    const { environment } = job;
    const isPayout = 'withdrawalId' in job.subject;
    try {
      await job.run();
      this.jobs.delete(job.key);
      if (isPayout) {
        this.deps.metrics.attempts.inc({ environment, result: 'recorded' });
        this.deps.metrics.pending.dec({ environment });
      }
    } catch (error) {
      job.failures++;
      const delayMs = payoutRetryDelayMs(job.failures, this.backOff, (this.deps.random ?? Math.random)());
      job.dueAt = this.deps.clock.now().getTime() + delayMs;
      if (isPayout) this.deps.metrics.attempts.inc({ environment, result: 'failed' });
      this.deps.logger.warn(
        { environment, ...job.subject, attempt: job.failures, retryInMs: delayMs, reason: reasonOf(error) },
        isPayout
          ? 'withdrawal payout failed; it stays pending and is retried'
          : 'pending withdrawals not resumed yet; retrying',
      );
    }
  }
}
