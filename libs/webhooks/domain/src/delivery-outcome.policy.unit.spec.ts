import { deliveryOutcome, FAILING_GRACE_MS, failingGraceOver } from './delivery-outcome.policy';
import { RETRY_DELAYS_MS } from './retry-schedule';

const HOUR = 60 * 60 * 1000;
const middle = () => 0.5;

describe('what an attempt means for its delivery', () => {
  it('delivers on any 2xx', () => {
    for (const statusCode of [200, 201, 202, 204, 299])
      expect(deliveryOutcome({ statusCode, attemptsMade: 1, random: middle })).toEqual({ kind: 'delivered' });
  });

  it('stops at once on 410 Gone, whatever the attempt', () => {
    expect(deliveryOutcome({ statusCode: 410, attemptsMade: 1, random: middle })).toEqual({ kind: 'gone' });
  });

  it('retries 5xx, 4xx and network errors on the back-off schedule', () => {
    for (const statusCode of [500, 502, 404, 301, null]) {
      expect(deliveryOutcome({ statusCode, attemptsMade: 1, random: middle })).toEqual({
        kind: 'retry',
        delayMs: RETRY_DELAYS_MS[0],
      });
    }
    expect(deliveryOutcome({ statusCode: 500, attemptsMade: 3, random: middle })).toEqual({
      kind: 'retry',
      delayMs: RETRY_DELAYS_MS[2],
    });
  });

  it('honours Retry-After on 429 and 503 only, and never beyond a day', () => {
    const wish = 3 * HOUR;
    expect(deliveryOutcome({ statusCode: 429, retryAfterMs: wish, attemptsMade: 1, random: middle })).toEqual(
      {
        kind: 'retry',
        delayMs: wish,
      },
    );
    expect(
      deliveryOutcome({ statusCode: 503, retryAfterMs: 48 * HOUR, attemptsMade: 1, random: middle }),
    ).toEqual({ kind: 'retry', delayMs: 24 * HOUR });
    expect(deliveryOutcome({ statusCode: 500, retryAfterMs: wish, attemptsMade: 1, random: middle })).toEqual(
      {
        kind: 'retry',
        delayMs: RETRY_DELAYS_MS[0],
      },
    );
  });

  it('gives up once every attempt failed; a delivered or gone answer draws no jitter', () => {
    const draws: number[] = [];
    const random = () => (draws.push(1), 0.5);
    expect(deliveryOutcome({ statusCode: 500, attemptsMade: RETRY_DELAYS_MS.length + 1, random })).toEqual({
      kind: 'gave_up',
    });
    deliveryOutcome({ statusCode: 200, attemptsMade: 1, random });
    deliveryOutcome({ statusCode: 410, attemptsMade: 1, random });
    expect(draws.length).toBe(1);
  });
});

describe('the failing grace of a subscription', () => {
  const since = '2026-01-01T00:00:00.000Z';
  const at = (ms: number) => new Date(Date.parse(since) + ms).toISOString();

  it('disables a subscription failing for 3 days, not a moment before', () => {
    expect(failingGraceOver(since, at(FAILING_GRACE_MS - 1))).toBe(false);
    expect(failingGraceOver(since, at(FAILING_GRACE_MS))).toBe(true);
    expect(failingGraceOver(since, new Date(Date.parse(since) + FAILING_GRACE_MS + 1))).toBe(true);
  });
});
