import type { Environment } from '@cip/shared/contracts';
import type { Clock } from '@cip/shared/runtime';
import type { WebhookDelivery } from '@cip/webhooks/read-models';
import type { DeliveryJob } from './delivery-log';

export type Lane = WebhookDelivery['lane'];

/** The deliveries of one user's Events to one subscription, in order; only its head is ever sent. */
export interface Queue {
  environment: Environment;
  subscriptionId: string;
  lane: Lane;
  jobs: DeliveryJob[];
  busy: boolean;
}

/**
 * The delivery queues and where each stands: ready to send (per lane), or waiting for its head's retry
 * (by due time on the injected clock). Order: deliveries of one user to one subscription form a queue
 * whose head alone is in flight or waiting; the next one leaves when the head succeeded or gave up.
 * Express deliveries (3-D Secure challenges) have a lane of their own, so a backlog never delays them.
 */
export class DeliveryQueues {
  private readonly queues = new Map<string, Queue>();
  readonly ready: Record<Lane, Set<string>> = { express: new Set(), standard: new Set() };
  private readonly waiting = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Adds a delivery at the end of its queue (once); the queue is scheduled when it was empty. */
  add(job: DeliveryJob): void {
    const { queueKey, subscriptionId, lane } = job.delivery;
    let queue = this.queues.get(queueKey);
    if (!queue) {
      queue = { environment: job.environment, subscriptionId, lane, jobs: [], busy: false };
      this.queues.set(queueKey, queue);
    }
    if (queue.jobs.some((j) => j.delivery.id === job.delivery.id)) return;
    queue.jobs.push(job);
    if (queue.jobs.length === 1) this.schedule(queueKey, queue);
  }

  get(key: string): Queue | undefined {
    return this.queues.get(key);
  }

  entries(): IterableIterator<[string, Queue]> {
    return this.queues.entries();
  }

  /** Ready when its head is due, otherwise waiting for it. */
  schedule(key: string, queue: Queue): void {
    const head = queue.jobs[0];
    const due = head.delivery.nextAttemptAt ? Date.parse(head.delivery.nextAttemptAt) : 0;
    if (due <= this.clock.now().getTime()) this.ready[queue.lane].add(key);
    else this.waiting.set(key, due);
  }

  /** The head of the queue is retried at `due` (ms on the injected clock). */
  retryAt(key: string, due: number): void {
    this.waiting.set(key, due);
  }

  isWaiting(key: string): boolean {
    return this.waiting.has(key);
  }

  /** Makes the queues whose retry is due at `now` (ms on the injected clock) ready. */
  releaseDue(now = this.clock.now().getTime()): void {
    for (const [key, due] of this.waiting) {
      if (due > now) continue;
      this.waiting.delete(key);
      const queue = this.queues.get(key);
      if (queue) this.ready[queue.lane].add(key);
    }
  }

  /** Makes queues ready again (parked on an open breaker that let go), unless they wait for a retry. */
  release(keys: Iterable<string>): void {
    for (const key of keys) {
      const queue = this.queues.get(key);
      if (queue && !this.waiting.has(key)) this.ready[queue.lane].add(key);
    }
  }

  forget(key: string): void {
    this.queues.delete(key);
    this.waiting.delete(key);
    this.ready.express.delete(key);
    this.ready.standard.delete(key);
  }

  get readyCount(): number {
    return this.ready.express.size + this.ready.standard.size;
  }

  /** Deliveries not yet finished. */
  get backlog(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.jobs.length;
    return count;
  }

  /** Deliveries not yet finished of one environment (the backoffice's health page). */
  backlogOf(environment: Environment): number {
    let count = 0;
    for (const queue of this.queues.values())
      if (queue.environment === environment) count += queue.jobs.length;
    return count;
  }
}
