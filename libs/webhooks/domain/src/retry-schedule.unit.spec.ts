import { MAX_DELIVERY_ATTEMPTS, nextRetryDelayMs, RETRY_DELAYS_MS } from './retry-schedule';

const HOUR = 3_600_000;

describe('webhook retry schedule', () => {
  it('spreads about 8 attempts over at least 24 hours, even with the shortest jitter', () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(8);
    let total = 0;
    for (let attempt = 1; attempt < MAX_DELIVERY_ATTEMPTS; attempt++) total += nextRetryDelayMs(attempt, 0)!;
    expect(total).toBeGreaterThanOrEqual(21 * HOUR);
    const nominal = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(nominal).toBeGreaterThanOrEqual(24 * HOUR);
  });

  it('grows exponentially-ish and stops after the last attempt', () => {
    const delays = RETRY_DELAYS_MS.map((_, i) => nextRetryDelayMs(i + 1, 0.5)!);
    expect(delays).toEqual(RETRY_DELAYS_MS);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]);
    expect(nextRetryDelayMs(MAX_DELIVERY_ATTEMPTS, 0.5)).toBeNull();
    expect(nextRetryDelayMs(0, 0.5)).toBeNull();
  });

  it('jitters by at most 20% either way', () => {
    expect(nextRetryDelayMs(1, 0)).toBe(4000);
    expect(nextRetryDelayMs(1, 0.999999)).toBe(6000);
  });

  it('honours a longer Retry-After, capped at a day, and never retries sooner than the back-off', () => {
    expect(nextRetryDelayMs(1, 0.5, 120_000)).toBe(120_000);
    expect(nextRetryDelayMs(2, 0.5, 1000)).toBe(RETRY_DELAYS_MS[1]);
    expect(nextRetryDelayMs(1, 0.5, 7 * 24 * HOUR)).toBe(24 * HOUR);
  });
});
