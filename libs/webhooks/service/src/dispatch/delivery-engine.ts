import type { Environment } from '@cip/shared/contracts';
import { PublicEventLog, renderEvent } from '@cip/events/contract';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock, Logger } from '@cip/shared/runtime';
import { nextRetryDelayMs } from '@cip/webhooks/domain';
import { DeliveryAttempt, WEBHOOK_DELIVERIES, WebhookDelivery } from '@cip/webhooks/read-models';
import CircuitBreaker from 'opossum';
import {
  retryAfterMs,
  WebhookHttpClient,
  WebhookResponse,
  WebhookTransportError,
} from '../delivery/webhook-http-client';
import type { SigningKeyRing } from '../signing/signing-keys';
import { signWebhook } from '../signing/webhook-signature';
import type { DirectoryEntry, SubscriptionDirectory } from './subscription-directory';
import type { WebhookMetrics } from './webhook-metrics';

// ---------------------------------------------------------------------------------------------------
// The delivery engine: sends pending deliveries, retries them on the injected clock, and writes every
// attempt to the delivery log. Its queue is memory backed by the `webhook_deliveries` documents: a
// delivery is written as pending before the dispatcher's checkpoint moves past its Event, and the
// pending ones are loaded again on start, so a crash or restart resends rather than loses.
//
// Order: deliveries of one user to one subscription form a queue whose head alone is in flight or
// waiting for its retry; the next one leaves when the head succeeded or gave up. Express deliveries
// (3-D Secure challenges) have a queue each and their own concurrency, so a backlog never delays them.
// ---------------------------------------------------------------------------------------------------

export type Lane = WebhookDelivery['lane'];

export interface DeliveryJob {
  environment: Environment;
  delivery: WebhookDelivery;
  /** The Event as JSON, exactly as GET /v1/events/{eventId} renders it (loaded on first attempt). */
  body?: string;
}

export interface EngineOptions {
  /** Attempts in flight at once, per lane. */
  concurrency: Record<Lane, number>;
  breaker: { resetTimeoutMs: number; volumeThreshold: number; errorThresholdPercentage: number };
}

export interface EngineDependencies {
  directory: Pick<SubscriptionDirectory, 'get'>;
  http: WebhookHttpClient;
  keys(environment: Environment): SigningKeyRing;
  readStore(environment: Environment): ReadStore;
  /** The recorded Events (the events contract): the body of a delivery is the Event as recorded. */
  events: Pick<PublicEventLog, 'findEvent'>;
  /** Reports a delivery outcome to the subscription (failing since / recovered / disabled / gone). */
  reportOutcome(
    environment: Environment,
    entry: DirectoryEntry,
    outcome: 'succeeded' | 'failed' | 'gone',
  ): Promise<void>;
  clock: Clock;
  metrics: WebhookMetrics;
  logger: Logger;
  random?: () => number;
}

/** A non-2xx answer: a failure for the circuit breaker, carrying the response for the delivery log. */
class UnsuccessfulResponse extends Error {
  constructor(readonly response: WebhookResponse) {
    super(`HTTP ${response.statusCode}`);
  }
}

interface Endpoint {
  breaker: CircuitBreaker<[string, URL, string, Record<string, string>], WebhookResponse>;
  url: string;
  inFlight: number;
  /** Queues that found the breaker open; they go again when it half-opens or closes. */
  parked: Set<string>;
}

interface Queue {
  environment: Environment;
  subscriptionId: string;
  lane: Lane;
  jobs: DeliveryJob[];
  busy: boolean;
}

const MAX_ERROR_LENGTH = 300;

export const versionOf = (delivery: WebhookDelivery) =>
  delivery.attempts.length * 2 + (delivery.status === 'cancelled' ? 1 : 0);

export class DeliveryEngine {
  private readonly queues = new Map<string, Queue>();
  private readonly ready: Record<Lane, Set<string>> = { express: new Set(), standard: new Set() };
  /** Queues whose head waits for a retry, by due time (ms on the injected clock). */
  private readonly waiting = new Map<string, number>();
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly inFlight: Record<Lane, number> = { express: 0, standard: 0 };
  private readonly pendingWrites = new Map<Environment, Map<string, WebhookDelivery>>();
  private flushing: Promise<void> | null = null;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly deps: EngineDependencies,
    private readonly options: EngineOptions,
  ) {}

  /** Adds deliveries (already stored as pending); those of one queue must come in sequence order. */
  enqueue(jobs: DeliveryJob[]): void {
    for (const job of jobs) {
      const { queueKey, subscriptionId, lane } = job.delivery;
      let queue = this.queues.get(queueKey);
      if (!queue) {
        queue = { environment: job.environment, subscriptionId, lane, jobs: [], busy: false };
        this.queues.set(queueKey, queue);
      }
      if (queue.jobs.some((j) => j.delivery.id === job.delivery.id)) continue;
      queue.jobs.push(job);
      if (queue.jobs.length === 1) this.schedule(queueKey, queue);
    }
    this.pump();
  }

  /** Moves the queues whose retry is due (on the injected clock) to the ready set and sends. */
  runDue(): void {
    const now = this.deps.clock.now().getTime();
    for (const [key, due] of this.waiting) {
      if (due > now) continue;
      this.waiting.delete(key);
      const queue = this.queues.get(key);
      if (queue) this.ready[queue.lane].add(key);
    }
    this.pump();
  }

  /** Drops every queued delivery of a subscription that no longer receives (disabled, deleted, url changed). */
  cancelSubscription(environment: Environment, subscriptionId: string, reason: string): void {
    for (const [key, queue] of this.queues) {
      if (queue.subscriptionId !== subscriptionId || queue.environment !== environment) continue;
      const cancelled = queue.busy ? queue.jobs.slice(1) : queue.jobs;
      for (const job of cancelled) this.finish(job, 'cancelled', reason);
      queue.jobs = queue.busy ? queue.jobs.slice(0, 1) : [];
      if (!queue.busy) this.forget(key);
    }
    const endpoint = this.endpoints.get(subscriptionId);
    if (endpoint && endpoint.inFlight === 0) {
      endpoint.breaker.shutdown();
      this.endpoints.delete(subscriptionId);
    }
  }

  /** Resolves once nothing is in flight or ready to go and every attempt is written (tests, shutdown). */
  async idle(): Promise<void> {
    while (!this.isIdle()) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.flush();
  }

  /** Deliveries not yet finished (metrics, tests). */
  get backlog(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.jobs.length;
    return count;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
    for (const endpoint of this.endpoints.values()) endpoint.breaker.shutdown();
    this.endpoints.clear();
  }

  // -------------------------------------------------------------------------------------------------

  private schedule(key: string, queue: Queue): void {
    const head = queue.jobs[0];
    const due = head.delivery.nextAttemptAt ? Date.parse(head.delivery.nextAttemptAt) : 0;
    if (due <= this.deps.clock.now().getTime()) this.ready[queue.lane].add(key);
    else this.waiting.set(key, due);
  }

  private forget(key: string): void {
    this.queues.delete(key);
    this.waiting.delete(key);
    this.ready.express.delete(key);
    this.ready.standard.delete(key);
  }

  private isIdle(): boolean {
    return this.inFlight.express + this.inFlight.standard === 0 && this.sendableCount() === 0;
  }

  private sendableCount(): number {
    return this.ready.express.size + this.ready.standard.size;
  }

  private pump(): void {
    if (this.stopped) return;
    for (const lane of ['express', 'standard'] as const) {
      const ready = this.ready[lane];
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
        void this.attempt(queue, queue.jobs[0], endpoint).finally(() => {
          queue.busy = false;
          endpoint.inFlight--;
          this.inFlight[lane]--;
          this.afterAttempt(key, queue);
        });
      }
    }
    this.notifyIdle();
  }

  private reportParked(queue: Queue): void {
    const entry = this.deps.directory.get(queue.environment, queue.subscriptionId);
    if (!entry) return;
    this.deps
      .reportOutcome(queue.environment, entry, 'failed')
      .catch((error) => this.deps.logger.error({ err: error }, 'webhook subscription outcome not recorded'));
  }

  private afterAttempt(key: string, queue: Queue): void {
    if (queue.jobs.length === 0) this.forget(key);
    else if (!this.waiting.has(key)) this.schedule(key, queue);
    this.pump();
  }

  private notifyIdle(): void {
    if (!this.isIdle()) return;
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
    let endpoint = this.endpoints.get(queue.subscriptionId);
    if (endpoint && endpoint.url !== entry.subscription.url && endpoint.inFlight === 0) {
      endpoint.breaker.shutdown();
      endpoint = undefined;
    }
    if (!endpoint) {
      const breaker = new CircuitBreaker(
        async (id: string, url: URL, body: string, headers: Record<string, string>) => {
          const response = await this.deps.http.post(url, body, { ...headers, 'webhook-id': id });
          if (response.statusCode < 200 || response.statusCode >= 300)
            throw new UnsuccessfulResponse(response);
          return response;
        },
        {
          timeout: false,
          resetTimeout: this.options.breaker.resetTimeoutMs,
          volumeThreshold: this.options.breaker.volumeThreshold,
          errorThresholdPercentage: this.options.breaker.errorThresholdPercentage,
          name: queue.subscriptionId,
        },
      );
      const created: Endpoint = { breaker, url: entry.subscription.url, inFlight: 0, parked: new Set() };
      const release = () => {
        for (const key of created.parked) {
          const parked = this.queues.get(key);
          if (parked && !this.waiting.has(key)) this.ready[parked.lane].add(key);
        }
        created.parked.clear();
        this.pump();
      };
      breaker.on('halfOpen', release);
      breaker.on('close', release);
      breaker.on('open', () =>
        this.deps.logger.warn({ subscriptionId: queue.subscriptionId }, 'webhook endpoint circuit opened'),
      );
      endpoint = created;
      this.endpoints.set(queue.subscriptionId, endpoint);
    }
    return endpoint;
  }

  private async attempt(queue: Queue, job: DeliveryJob, endpoint: Endpoint): Promise<void> {
    const entry = this.deps.directory.get(queue.environment, queue.subscriptionId);
    if (!entry) return;
    try {
      job.body ??= await this.loadBody(job);
    } catch (error) {
      this.deps.logger.error(
        { err: error, deliveryId: job.delivery.id },
        'webhook delivery body could not be loaded',
      );
      return this.scheduleRetry(queue, job, { statusCode: null, latencyMs: 0, error: 'internal error' });
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
      response = await endpoint.breaker.fire(job.delivery.eventId, entry.url, job.body, { ...headers });
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
    const outcome = {
      statusCode,
      latencyMs,
      error: error ?? (statusCode !== null && statusCode >= 300 ? `HTTP ${statusCode}` : null),
    };
    if (this.stopped) return;
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
      this.record(job, 'succeeded', outcome);
      queue.jobs.shift();
      this.deps.metrics.deliveries.inc({ result: 'succeeded' });
      if (!job.delivery.redelivery) {
        this.deps.metrics.eventToDelivery.observe(
          Math.max(0, this.deps.clock.now().getTime() - Date.parse(job.delivery.eventCreatedAt)) / 1000,
        );
      }
      await this.deps.reportOutcome(queue.environment, entry, 'succeeded');
      return;
    }
    if (statusCode === 410) {
      this.record(job, 'failed', outcome);
      queue.jobs.shift();
      this.deps.metrics.deliveries.inc({ result: 'gone' });
      await this.deps.reportOutcome(queue.environment, entry, 'gone');
      return;
    }
    const retryAfter =
      response && (statusCode === 429 || statusCode === 503)
        ? retryAfterMs(response.retryAfter, this.deps.clock.now())
        : undefined;
    this.scheduleRetry(queue, job, outcome, retryAfter);
    await this.deps.reportOutcome(queue.environment, entry, 'failed');
  }

  private scheduleRetry(
    queue: Queue,
    job: DeliveryJob,
    outcome: Omit<DeliveryAttempt, 'attempt' | 'at'>,
    retryAfter?: number,
  ): void {
    const delay = nextRetryDelayMs(
      job.delivery.attempts.length + 1,
      (this.deps.random ?? Math.random)(),
      retryAfter,
    );
    if (delay === null) {
      this.record(job, 'failed', outcome);
      queue.jobs.shift();
      this.deps.metrics.deliveries.inc({ result: 'gave_up' });
      return;
    }
    const nextAttemptAt = this.deps.clock.now().getTime() + delay;
    this.record(job, 'pending', outcome, new Date(nextAttemptAt).toISOString());
    this.waiting.set(job.delivery.queueKey, nextAttemptAt);
    this.deps.metrics.deliveries.inc({ result: 'failed_attempt' });
  }

  private async loadBody(job: DeliveryJob): Promise<string> {
    const record = await this.deps.events.findEvent(job.environment, job.delivery.eventId);
    if (!record) throw new Error(`Event ${job.delivery.eventId} is not recorded`);
    return JSON.stringify(renderEvent(record));
  }

  private record(
    job: DeliveryJob,
    status: WebhookDelivery['status'],
    outcome: Omit<DeliveryAttempt, 'attempt' | 'at'>,
    nextAttemptAt: string | null = null,
  ): void {
    const at = this.deps.clock.now().toISOString();
    const attempt: DeliveryAttempt = {
      attempt: job.delivery.attempts.length + 1,
      at,
      ...outcome,
      error: outcome.error ? outcome.error.slice(0, MAX_ERROR_LENGTH) : null,
    };
    job.delivery = {
      ...job.delivery,
      status,
      attempts: [...job.delivery.attempts, attempt],
      nextAttemptAt,
      updatedAt: at,
    };
    this.write(job);
  }

  private finish(job: DeliveryJob, status: 'cancelled', reason: string): void {
    job.delivery = {
      ...job.delivery,
      status,
      nextAttemptAt: null,
      cancelReason: reason,
      updatedAt: this.deps.clock.now().toISOString(),
    };
    this.deps.metrics.deliveries.inc({ result: 'cancelled' });
    this.write(job);
  }

  /** Attempt outcomes are written in batches, one transaction per environment, right after the tick. */
  private write(job: DeliveryJob): void {
    let writes = this.pendingWrites.get(job.environment);
    if (!writes) {
      writes = new Map();
      this.pendingWrites.set(job.environment, writes);
    }
    writes.set(job.delivery.id, job.delivery);
    if (!this.flushing)
      this.flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
  }

  private async flush(): Promise<void> {
    this.flushing = null;
    const batches = [...this.pendingWrites.entries()];
    this.pendingWrites.clear();
    for (const [environment, writes] of batches) {
      const docs = [...writes.values()];
      try {
        await this.deps.readStore(environment).upsertMany(
          WEBHOOK_DELIVERIES,
          docs.map((doc) => ({ id: doc.id, doc, version: versionOf(doc) })),
        );
      } catch (error) {
        // The attempts happened but their log line is lost; a pending delivery is sent again after a restart.
        this.deps.logger.error({ err: error, count: docs.length }, 'webhook delivery log write failed');
      }
    }
  }
}
