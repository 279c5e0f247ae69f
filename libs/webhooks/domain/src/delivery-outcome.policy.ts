import { nextRetryDelayMs } from './retry-schedule';

// ---------------------------------------------------------------------------------------------------
// What an attempt's answer means for its delivery and for the subscription (API-DECISIONS.md, "Webhooks"):
// a 2xx delivers; 410 Gone disables the subscription at once; anything else is retried on the back-off
// schedule (Retry-After honoured on 429 and 503) until the attempts run out. Deliveries that keep failing
// for the whole grace period disable the subscription. Pure: time and the random draw come in.
// ---------------------------------------------------------------------------------------------------

/** A subscription whose deliveries keep failing this long is disabled. */
export const FAILING_GRACE_MS = 3 * 24 * 60 * 60 * 1000;

export interface AttemptResult {
  /** HTTP status of the answer; null when there was none (refused url, connection error, time-out). */
  statusCode: number | null;
  /** The receiver's Retry-After as a wait in ms (read on 429 and 503 only). */
  retryAfterMs?: number;
  /** Attempts made so far, this one included. */
  attemptsMade: number;
  /** Draws in [0, 1) for the jitter of the back-off (drawn only when a retry is scheduled). */
  random: () => number;
}

export type DeliveryOutcome =
  | { kind: 'delivered' }
  /** 410 Gone: the receiver says the endpoint is gone for good; the subscription is disabled. */
  | { kind: 'gone' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'gave_up' };

export function deliveryOutcome(result: AttemptResult): DeliveryOutcome {
  const { statusCode } = result;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { kind: 'delivered' };
  if (statusCode === 410) return { kind: 'gone' };
  const honoured = statusCode === 429 || statusCode === 503 ? result.retryAfterMs : undefined;
  const delayMs = nextRetryDelayMs(result.attemptsMade, result.random(), honoured);
  return delayMs === null ? { kind: 'gave_up' } : { kind: 'retry', delayMs };
}

/**
 * The one owner of the failing grace: a subscription failing since `failingSince` is disabled by a failure
 * at `now` once the grace period is over.
 */
export const failingGraceOver = (failingSince: string, now: string | Date): boolean =>
  new Date(now).getTime() - Date.parse(failingSince) >= FAILING_GRACE_MS;
