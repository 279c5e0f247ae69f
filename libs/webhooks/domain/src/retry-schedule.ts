// ---------------------------------------------------------------------------------------------------
// Retry schedule of a webhook delivery (API-DECISIONS.md: exponential back-off with jitter over at least
// 24 hours, about 8 attempts). Pure: the random draw and the Retry-After wish come in as arguments.
// ---------------------------------------------------------------------------------------------------

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the 1st, 2nd, ... failed attempt: 8 attempts spread over about 27.5 hours. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Jitter of +/- 20% spreads the retries of many deliveries that failed together. */
const JITTER = 0.2;

/** A receiver's Retry-After is honoured, but never holds a delivery back by more than a day. */
const MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * How long to wait before the next attempt after `attemptsMade` attempts all failed, or null when the
 * delivery has used all its attempts. `random` is a draw in [0, 1); `retryAfterMs` is the receiver's
 * Retry-After (429/503), which wins when it asks for a longer wait than the back-off.
 */
export function nextRetryDelayMs(attemptsMade: number, random: number, retryAfterMs?: number): number | null {
  if (attemptsMade < 1 || attemptsMade >= MAX_DELIVERY_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attemptsMade - 1];
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}
