import { ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import type { Clock, Logger } from '@cip/shared/runtime';
import { Counter, Gauge, Registry } from 'prom-client';
import { PAYOUT_BACK_OFF, payoutRetryDelayMs } from '../withdrawal-payouts';
import type { SettlementBatches, SettlementBatchReport, SettlementCutReport } from './settlement-batches';

// ---------------------------------------------------------------------------------------------------
// The settlement runner: cuts the batches of every environment on a schedule (SETTLEMENT_INTERVAL_MS, on
// the injected clock) or on demand (`runNow`, the CLI's `settlement run` through the ledger), and pays
// every open batch, the ones the CLI cut included. One run at a time per environment in this process; a
// batch whose payout throws (node down, receipt late) stays open and is retried after a back-off.
// ---------------------------------------------------------------------------------------------------

export class SettlementMetrics {
  readonly batches: Counter<'environment' | 'outcome'>;
  readonly amount: Counter<'environment' | 'type'>;
  readonly waiting: Gauge<'environment' | 'reason'>;
  readonly runs: Counter<'environment' | 'result'>;

  constructor(registry: Registry) {
    this.batches = new Counter({
      name: 'wallet_settlement_batches_total',
      help: 'Settlement batches by outcome: cut (claimed), confirmed (transfer mined), failed (nothing moved, items re-batched)',
      labelNames: ['environment', 'outcome'] as const,
      registers: [registry],
    });
    this.amount = new Counter({
      name: 'wallet_settlement_amount_minor_total',
      help: 'USDC minor units settled by confirmed batches: settlement (cleared, force posts), refund, net (transferred)',
      labelNames: ['environment', 'type'] as const,
      registers: [registry],
    });
    this.waiting = new Gauge({
      name: 'wallet_settlement_waiting_items',
      help: 'Settlement items left out of the last run, by why (no_settlement_address, net_not_positive, batch_in_flight)',
      labelNames: ['environment', 'reason'] as const,
      registers: [registry],
    });
    this.runs = new Counter({
      name: 'wallet_settlement_runs_total',
      help: 'Settlement runs: ok, conflict (another run claimed first), error',
      labelNames: ['environment', 'result'] as const,
      registers: [registry],
    });
  }
}

export interface SettlementRunReport extends SettlementCutReport {
  /** The batches paid (or tried) by this run: the ones it cut and any left open before. */
  settled: SettlementBatchReport[];
}

const WAIT_REASONS = ['no_settlement_address', 'net_not_positive', 'batch_in_flight'] as const;
const MAX_REASON_LENGTH = 200;
const reasonOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, MAX_REASON_LENGTH);

export class SettlementRunner {
  private readonly queues = new Map<Environment, Promise<unknown>>();
  private readonly retries = new Map<string, { failures: number; dueAt: number }>();
  private nextRunAt: number | null = null;
  private stopped = false;

  constructor(
    private readonly batches: SettlementBatches,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly metrics: SettlementMetrics,
    /** Between scheduled runs, on the clock; 0: no scheduled run (on demand only). */
    private readonly intervalMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Cuts the environment's batches now and pays every open batch; resolves with what happened. */
  runNow(environment: Environment): Promise<SettlementRunReport> {
    return this.serialised(environment, () => this.run(environment));
  }

  /** Pays the open batches whose retry is due (the ones the CLI cut are due at once). */
  settleOpen(environment: Environment): Promise<SettlementBatchReport[]> {
    return this.serialised(environment, () => this.settleDue(environment));
  }

  /**
   * One step of the schedule: a run of every environment when the interval has passed on the clock, and
   * the open batches that are due otherwise. The app calls it on a timer; tests call it after moving the clock.
   */
  async tick(): Promise<void> {
    if (this.stopped) return;
    const now = this.clock.now().getTime();
    if (this.intervalMs > 0) this.nextRunAt ??= now + this.intervalMs;
    const scheduled = this.nextRunAt !== null && now >= this.nextRunAt;
    if (scheduled) this.nextRunAt = now + this.intervalMs;
    await Promise.all(
      ENVIRONMENTS.map(async (environment) => {
        try {
          if (scheduled) await this.runNow(environment);
          else await this.settleOpen(environment);
        } catch (error) {
          this.logger.warn(
            { environment, reason: reasonOf(error) },
            'settlement run failed; retried on the next tick',
          );
        }
      }),
    );
  }

  /** Resolves once no run is in progress. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.queues.values()]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }

  // -------------------------------------------------------------------------------------------------

  private serialised<T>(environment: Environment, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(environment) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.queues.set(environment, next);
    return next;
  }

  private async run(environment: Environment): Promise<SettlementRunReport> {
    let cut: SettlementCutReport;
    try {
      cut = await this.batches.cut(environment);
    } catch (error) {
      this.metrics.runs.inc({ environment, result: 'error' });
      throw error;
    }
    this.metrics.runs.inc({ environment, result: cut.conflict ? 'conflict' : 'ok' });
    if (cut.conflict)
      this.logger.info({ environment }, 'settlement run lost the claim to another run; nothing cut');
    if (!cut.conflict) {
      for (const reason of WAIT_REASONS)
        this.metrics.waiting.set(
          { environment, reason },
          cut.waiting.filter((w) => w.reason === reason).reduce((sum, w) => sum + w.items, 0),
        );
    }
    for (const waiting of cut.waiting)
      (waiting.reason === 'no_settlement_address' ? this.logger.warn : this.logger.info).call(
        this.logger,
        { environment, ...waiting },
        'settlement items wait for a later batch',
      );
    for (const batch of cut.batches) {
      this.metrics.batches.inc({ environment, outcome: 'cut' });
      this.logger.info({ environment, ...batch }, 'settlement batch cut');
    }
    // The batches just cut are due at once, whatever happened to earlier ones.
    for (const batch of cut.batches) this.retries.delete(batch.batchId);
    return { ...cut, settled: await this.settleDue(environment) };
  }

  private async settleDue(environment: Environment): Promise<SettlementBatchReport[]> {
    const now = this.clock.now().getTime();
    const reports: SettlementBatchReport[] = [];
    for (const { batchId } of await this.batches.openBatches(environment)) {
      const retry = this.retries.get(batchId);
      if (retry && retry.dueAt > now) continue;
      try {
        const { changed, ...report } = await this.batches.settle(environment, batchId);
        this.retries.delete(batchId);
        reports.push(report);
        if (changed) this.recordOutcome(environment, report);
      } catch (error) {
        const failures = (retry?.failures ?? 0) + 1;
        const delayMs = payoutRetryDelayMs(failures, PAYOUT_BACK_OFF, this.random());
        this.retries.set(batchId, { failures, dueAt: this.clock.now().getTime() + delayMs });
        this.logger.warn(
          { environment, batchId, attempt: failures, retryInMs: delayMs, reason: reasonOf(error) },
          'settlement transfer not settled; the batch stays open and is retried',
        );
        const batch = await this.batches.batch(environment, batchId);
        reports.push({
          batchId,
          distributorId: batch.status === 'absent' ? '' : batch.distributorId,
          amount: batch.status === 'absent' ? 0 : batch.amount,
          settled: batch.status === 'absent' ? 0 : batch.settled,
          refunded: batch.status === 'absent' ? 0 : batch.refunded,
          outcome: 'open',
          transactionHash: null,
          blockNumber: null,
        });
      }
    }
    return reports;
  }

  private recordOutcome(environment: Environment, report: SettlementBatchReport): void {
    this.metrics.batches.inc({ environment, outcome: report.outcome });
    if (report.outcome === 'confirmed') {
      this.metrics.amount.inc({ environment, type: 'net' }, report.amount);
      this.metrics.amount.inc({ environment, type: 'settlement' }, report.settled);
      this.metrics.amount.inc({ environment, type: 'refund' }, report.refunded);
      this.logger.info({ environment, ...report }, 'settlement batch confirmed');
    } else {
      this.logger.warn(
        { environment, ...report },
        'settlement batch failed; its items go into the next batch',
      );
    }
  }
}
