import type { PublicEventName } from '@cip/shared/contracts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  /** HTTP status of the answer; null when there was none (refused url, connection error, time-out). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/**
 * One Event sent to one subscription: its attempts and where it stands. Stored with the number of
 * attempts as its version, so a stale write (a replayed intake) never overwrites progress.
 */
export interface WebhookDelivery {
  id: string;
  subscriptionId: string;
  distributorId: string;
  eventId: string;
  eventName: PublicEventName;
  userId: string | null;
  status: DeliveryStatus;
  /** Manual redelivery (POST /v1/events/{eventId}/redeliver) rather than the Event's own delivery. */
  redelivery: boolean;
  /** When the Event occurred (event-to-delivery latency). */
  eventCreatedAt: string;
  /** Log position of the Event: deliveries of one queue leave in this order. */
  sequence: number;
  /** `express` for time-critical Events (EXPRESS_EVENT_NAMES), which never wait behind other deliveries. */
  lane: 'express' | 'standard';
  /** Deliveries with the same key (one user's Events to one subscription) leave one after the other. */
  queueKey: string;
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

export function renderDelivery(
  delivery: WebhookDelivery,
): Omit<WebhookDelivery, 'distributorId' | 'sequence' | 'queueKey'> {
  const { distributorId: _distributorId, sequence: _sequence, queueKey: _queueKey, ...rendered } = delivery;
  return rendered;
}
