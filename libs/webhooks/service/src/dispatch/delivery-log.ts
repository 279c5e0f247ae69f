import type { Environment } from '@cip/shared/contracts';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock, Logger } from '@cip/shared/runtime';
import { DeliveryAttempt, WEBHOOK_DELIVERIES, WebhookDelivery } from '@cip/webhooks/read-models';

/** A delivery being worked on by the engine: its document, and the Event's body once loaded. */
export interface DeliveryJob {
  environment: Environment;
  delivery: WebhookDelivery;
  /** The Event as JSON, exactly as GET /v1/events/{eventId} renders it (loaded on first attempt). */
  body?: string;
}

export type AttemptOutcome = Omit<DeliveryAttempt, 'attempt' | 'at'>;

const MAX_ERROR_LENGTH = 300;

/** The version of a delivery document: attempts only add, and a cancellation comes after them. */
export const versionOf = (delivery: WebhookDelivery) =>
  delivery.attempts.length * 2 + (delivery.status === 'cancelled' ? 1 : 0);

/**
 * The delivery log (`webhook_deliveries`, GET /v1/webhook-subscriptions/{id}/deliveries): every attempt
 * and its outcome. Writes are batched, one transaction per environment right after the tick.
 */
export class DeliveryLog {
  private readonly pendingWrites = new Map<Environment, Map<string, WebhookDelivery>>();
  private flushing: Promise<void> | null = null;
  /** The writes taken so far, in order (each flush's after the previous one's). */
  private written: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: { readStore(environment: Environment): ReadStore; clock: Clock; logger: Logger },
  ) {}

  /** Records an attempt of the job's delivery and where the delivery stands after it. */
  recordAttempt(
    job: DeliveryJob,
    status: WebhookDelivery['status'],
    outcome: AttemptOutcome,
    /** When the attempt's outcome was known: the time the subscription is told of too (`reportOutcome`). */
    when: Date,
    nextAttemptAt: string | null = null,
  ): void {
    const at = when.toISOString();
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

  /** Records that the delivery will not be sent (its subscription no longer receives). */
  recordCancelled(job: DeliveryJob, reason: string): void {
    job.delivery = {
      ...job.delivery,
      status: 'cancelled',
      nextAttemptAt: null,
      cancelReason: reason,
      updatedAt: this.deps.clock.now().toISOString(),
    };
    this.write(job);
  }

  /** Writes what was recorded; resolves once it and every earlier write are in the store. */
  async flush(): Promise<void> {
    this.flushing = null;
    const batches = [...this.pendingWrites.entries()];
    this.pendingWrites.clear();
    // After the writes under way: a flush finding nothing new still waits for what another one took.
    const written = this.written.then(() => this.writeBatches(batches));
    this.written = written;
    await written;
  }

  private async writeBatches(batches: [Environment, Map<string, WebhookDelivery>][]): Promise<void> {
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
}
