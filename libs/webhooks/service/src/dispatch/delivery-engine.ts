import type { Environment } from '@cip/shared/contracts';
import { PublicEventLog, renderEvent } from '@cip/events/contract';
import type { ReadStore } from '@cip/shared/read-store';
import {
  retryAfterMs,
  WebhookHttpClient,
  WebhookResponse,
  WebhookTransportError,
  type Clock,
  type Logger,
} from '@cip/shared/runtime';
import { deliveryOutcome } from '@cip/webhooks/domain';
import type { SigningKeyRing } from '../signing/signing-keys';
import { signWebhook } from '../signing/webhook-signature';
import { AttemptOutcome, DeliveryJob, DeliveryLog } from './delivery-log';
import { DeliveryQueues, Lane, Queue } from './delivery-queues';
import { BreakerOptions, Endpoint, EndpointBreakers, UnsuccessfulResponse } from './endpoint-breakers';
import type { DirectoryEntry, SubscriptionDirectory } from './subscription-directory';
import type { WebhookMetrics } from './webhook-metrics';

export type { DeliveryJob } from './delivery-log';
export { versionOf } from './delivery-log';
export type { Lane } from './delivery-queues';

// ---------------------------------------------------------------------------------------------------
// The delivery engine: sends pending deliveries, retries them on the injected clock, and writes every
// attempt to the delivery log. Its queues (delivery-queues.ts) are memory backed by the
// `webhook_deliveries` documents (delivery-log.ts): a delivery is written as pending before the
// dispatcher's checkpoint moves past its Event, and the pending ones are loaded again on start, so a crash
// or restart resends rather than loses. What an answer means is the domain's delivery-outcome policy;
// each endpoint has its circuit breaker (endpoint-breakers.ts).
// ---------------------------------------------------------------------------------------------------

export interface EngineOptions {
  /** Attempts in flight at once, per lane. */
  concurrency: Record<Lane, number>;
  breaker: BreakerOptions;
}

export interface EngineDependencies {
  directory: Pick<SubscriptionDirectory, 'get'>;
  http: WebhookHttpClient;
  keys(environment: Environment): SigningKeyRing;
  readStore(environment: Environment): ReadStore;
  /** The recorded Events (the events contract): the body of a delivery is the Event as recorded. */
  events: Pick<PublicEventLog, 'findEvent'>;
  /**
   * Reports a delivery outcome to the subscription (failing since / recovered / disabled / gone), known at
   * `at`: the attempt's time in the delivery log, so a subscription is failing since its first failed attempt.
   */
  reportOutcome(
    environment: Environment,
    entry: DirectoryEntry,
    outcome: 'succeeded' | 'failed' | 'gone',
    at: Date,
  ): Promise<void>;
  clock: Clock;
  metrics: WebhookMetrics;
  logger: Logger;
  random?: () => number;
}

export class DeliveryEngine {
  private queues: DeliveryQueues;
  private readonly breakers: EndpointBreakers;
  private readonly log: DeliveryLog;
  private readonly inFlight: Record<Lane, number> = { express: 0, standard: 0 };
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  /** Counts stops: an attempt of an earlier run (before a stop and a resume) records nothing. */
  private run = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopWatchingClock: (() => void) | null = null;
  /** The clock time of the last `runDue` whose deliveries are not all answered yet (null: none). */
  private lookedAt: number | null = null;
  /** The clock time reported on `webhook_retry_clock_seconds` (never goes back). */
  private reportedAt = 0;

  constructor(
    private readonly deps: EngineDependencies,
    private readonly options: EngineOptions,
  ) {
    this.queues = new DeliveryQueues(deps.clock);
    this.log = new DeliveryLog(deps);
    this.breakers = new EndpointBreakers(deps.http, options.breaker, deps.logger, (parked) => {
      this.queues.release(parked);
      this.pump();
    });
  }

  /**
   * Looks for due retries every `intervalMs` (real time), and at once whenever the clock jumps (a test clock
   * moved by another process: the split topology's FileClock), until `stop()`.
   */
  startRetries(intervalMs: number): void {
    if (this.retryTimer) return;
    this.retryTimer = setInterval(() => this.runDue(), intervalMs);
    this.retryTimer.unref();
    this.stopWatchingClock = this.deps.clock.onChange?.(() => this.runDue()) ?? null;
  }

  /** Adds deliveries (already stored as pending); those of one queue must come in sequence order. */
  enqueue(jobs: DeliveryJob[]): void {
    for (const job of jobs) this.queues.add(job);
    this.pump();
  }

  /**
   * Moves the queues whose retry is due (on the injected clock) to the ready set and sends. Once the engine
   * is next idle (everything it let go answered or held on an open circuit, and written to the delivery log),
   * `webhook_retry_clock_seconds` reports the time it looked at.
   */
  runDue(): void {
    const at = this.deps.clock.now().getTime();
    this.queues.releaseDue(at);
    this.lookedAt = Math.max(this.lookedAt ?? 0, at);
    this.pump();
  }

  /** Drops every queued delivery of a subscription that no longer receives (disabled, deleted, url changed). */
  cancelSubscription(environment: Environment, subscriptionId: string, reason: string): void {
    for (const [key, queue] of this.queues.entries()) {
      if (queue.subscriptionId !== subscriptionId || queue.environment !== environment) continue;
      const cancelled = queue.busy ? queue.jobs.slice(1) : queue.jobs;
      for (const job of cancelled) {
        this.log.recordCancelled(job, reason);
        this.deps.metrics.deliveries.inc({ result: 'cancelled' });
      }
      queue.jobs = queue.busy ? queue.jobs.slice(0, 1) : [];
      if (!queue.busy) this.queues.forget(key);
    }
    this.breakers.retire(subscriptionId);
  }

  /** Resolves once nothing is in flight or ready to go and every attempt is written (tests, shutdown). */
  async idle(): Promise<void> {
    while (!this.isIdle()) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.log.flush();
  }

  /** Deliveries not yet finished (metrics, tests). */
  get backlog(): number {
    return this.queues.backlog;
  }

  /** Deliveries not yet finished of one environment. */
  backlogOf(environment: Environment): number {
    return this.queues.backlogOf(environment);
  }

  /**
   * Runs again after `stop` (the dispatcher elected again): with empty queues, which the dispatcher fills from
   * the pending deliveries (`recover`); attempts still in flight from before record nothing.
   */
  resume(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.queues = new DeliveryQueues(this.deps.clock);
  }

  /** Whether the engine sends (between a resume and a stop). */
  get running(): boolean {
    return !this.stopped;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.run++;
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = null;
    this.stopWatchingClock?.();
    this.stopWatchingClock = null;
    await this.log.flush();
    this.breakers.shutdown();
  }

  // -------------------------------------------------------------------------------------------------

  private isIdle(): boolean {
    return this.inFlight.express + this.inFlight.standard === 0 && this.queues.readyCount === 0;
  }

  private pump(): void {
    if (this.stopped) return;
    for (const lane of ['express', 'standard'] as const) {
      const ready = this.queues.ready[lane];
      for (const key of ready) {
        if (this.inFlight[lane] >= this.options.concurrency[lane]) break;
        ready.delete(key);
        const queue = this.queues.get(key);
        if (!queue || queue.busy || queue.jobs.length === 0) continue;
        const endpoint = this.endpointFor(queue);
        if (!endpoint) continue;
        // While the breaker is open nothing is sent; half-open lets one probe through.
        if (endpoint.breaker.opened || (endpoint.breaker.halfOpen && endpoint.inFlight > 0)) {
          endpoint.parked.add(key);
          // A due delivery that cannot go is still a failing endpoint: the 3-day grace period runs on.
          if (endpoint.breaker.opened) this.reportParked(queue);
          continue;
        }
        queue.busy = true;
        endpoint.inFlight++;
        this.inFlight[lane]++;
        const run = this.run;
        void this.attempt(queue, queue.jobs[0], endpoint).finally(() => {
          queue.busy = false;
          endpoint.inFlight--;
          this.inFlight[lane]--;
          if (run === this.run) this.afterAttempt(key, queue);
          else this.notifyIdle();
        });
      }
    }
    this.notifyIdle();
  }

  private reportParked(queue: Queue): void {
    const entry = this.deps.directory.get(queue.environment, queue.subscriptionId);
    if (!entry) return;
    this.deps
      .reportOutcome(queue.environment, entry, 'failed', this.deps.clock.now())
      .catch((error) => this.deps.logger.error({ err: error }, 'webhook subscription outcome not recorded'));
  }

  private afterAttempt(key: string, queue: Queue): void {
    if (queue.jobs.length === 0) this.queues.forget(key);
    else if (!this.queues.isWaiting(key)) this.queues.schedule(key, queue);
    this.pump();
  }

  private notifyIdle(): void {
    if (!this.isIdle()) return;
    if (this.lookedAt !== null) {
      const at = this.lookedAt;
      this.lookedAt = null;
      void this.log.flush().then(() => {
        this.reportedAt = Math.max(this.reportedAt, at);
        this.deps.metrics.retryClock.set(this.reportedAt / 1000);
      });
    }
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /** The endpoint of a queue's subscription, or null (the queue is cancelled) when it no longer receives. */
  private endpointFor(queue: Queue): Endpoint | null {
    const entry = this.deps.directory.get(queue.environment, queue.subscriptionId);
    if (!entry || entry.subscription.status !== 'active') {
      this.cancelSubscription(
        queue.environment,
        queue.subscriptionId,
        'the subscription no longer receives deliveries',
      );
      return null;
    }
    return this.breakers.endpointOf(queue.subscriptionId, entry.subscription.url);
  }

  private async attempt(queue: Queue, job: DeliveryJob, endpoint: Endpoint): Promise<void> {
    const run = this.run;
    const entry = this.deps.directory.get(queue.environment, queue.subscriptionId);
    if (!entry) return;
    try {
      job.body ??= await this.loadBody(job);
    } catch (error) {
      this.deps.logger.error(
        { err: error, deliveryId: job.delivery.id },
        'webhook delivery body could not be loaded',
      );
      return this.retryOrGiveUp(
        queue,
        job,
        { statusCode: null, latencyMs: 0, error: 'internal error' },
        this.deps.clock.now(),
      );
    }
    const headers = signWebhook({
      id: job.delivery.eventId,
      timestamp: this.deps.clock.now(),
      body: job.body,
      keys: this.deps.keys(queue.environment).signingKeys(),
      secret: entry.secret,
    });
    const started = performance.now();
    let response: WebhookResponse | null = null;
    let error: string | null = null;
    try {
      response = await endpoint.breaker.fire(
        job.delivery.eventId,
        entry.url,
        job.body,
        { ...headers },
        job.delivery.lane,
      );
    } catch (failure) {
      if ((failure as { code?: string }).code === 'EOPENBREAKER') {
        // Not an attempt: nothing was sent. The queue waits for the breaker; the grace period runs on.
        this.deps.metrics.deliveries.inc({ result: 'circuit_open' });
        endpoint.parked.add(job.delivery.queueKey);
        if (!this.stopped) this.reportParked(queue);
        return;
      }
      if (failure instanceof UnsuccessfulResponse) response = failure.response;
      else error = failure instanceof WebhookTransportError ? failure.message : 'internal error';
    }
    const latencyMs = Math.round((performance.now() - started) * 10) / 10;
    this.deps.metrics.attemptDuration.observe(latencyMs / 1000);
    const statusCode = response?.statusCode ?? null;
    const outcome: AttemptOutcome = {
      statusCode,
      latencyMs,
      error: error ?? (statusCode !== null && statusCode >= 300 ? `HTTP ${statusCode}` : null),
    };
    if (this.stopped || run !== this.run) return;
    // One reading of the clock for everything this outcome records: the attempt's time in the delivery log,
    // its retry's, and the subscription's failing-since.
    const at = this.deps.clock.now();
    const retryAfter = response ? retryAfterMs(response.retryAfter, at) : undefined;
    const decided = this.outcomeOf(job, statusCode, retryAfter);
    if (decided.kind === 'delivered') {
      this.log.recordAttempt(job, 'succeeded', outcome, at);
      queue.jobs.shift();
      this.deps.metrics.deliveries.inc({ result: 'succeeded' });
      if (!job.delivery.redelivery) {
        this.deps.metrics.eventToDelivery.observe(
          Math.max(0, at.getTime() - Date.parse(job.delivery.eventCreatedAt)) / 1000,
        );
      }
      await this.deps.reportOutcome(queue.environment, entry, 'succeeded', at);
      return;
    }
    if (decided.kind === 'gone') {
      this.log.recordAttempt(job, 'failed', outcome, at);
      queue.jobs.shift();
      this.deps.metrics.deliveries.inc({ result: 'gone' });
      await this.deps.reportOutcome(queue.environment, entry, 'gone', at);
      return;
    }
    this.retryOrGiveUp(queue, job, outcome, at, decided);
    await this.deps.reportOutcome(queue.environment, entry, 'failed', at);
  }

  private outcomeOf(job: DeliveryJob, statusCode: number | null, retryAfter?: number) {
    return deliveryOutcome({
      statusCode,
      retryAfterMs: retryAfter,
      attemptsMade: job.delivery.attempts.length + 1,
      random: this.deps.random ?? Math.random,
    });
  }

  /** Records a failed attempt: the delivery waits for its retry, or gives up when its attempts ran out. */
  private retryOrGiveUp(
    queue: Queue,
    job: DeliveryJob,
    outcome: AttemptOutcome,
    at: Date,
    decided = this.outcomeOf(job, outcome.statusCode),
  ): void {
    if (decided.kind !== 'retry') {
      this.log.recordAttempt(job, 'failed', outcome, at);
      queue.jobs.shift();
      this.deps.metrics.deliveries.inc({ result: 'gave_up' });
      return;
    }
    const nextAttemptAt = at.getTime() + decided.delayMs;
    this.log.recordAttempt(job, 'pending', outcome, at, new Date(nextAttemptAt).toISOString());
    this.queues.retryAt(job.delivery.queueKey, nextAttemptAt);
    this.deps.metrics.deliveries.inc({ result: 'failed_attempt' });
  }

  private async loadBody(job: DeliveryJob): Promise<string> {
    const record = await this.deps.events.findEvent(job.environment, job.delivery.eventId);
    if (!record) throw new Error(`Event ${job.delivery.eventId} is not recorded`);
    return JSON.stringify(renderEvent(record));
  }
}
