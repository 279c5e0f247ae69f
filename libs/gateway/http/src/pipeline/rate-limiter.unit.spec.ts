import { RateLimiter } from './rate-limiter';

const KEY_A = 'sk_sandbox_hash_a';
const KEY_B = 'sk_sandbox_hash_b';
const T0 = 1_714_560_000_000;

/** Takes `count` tokens at the same instant and returns the results. */
const takeMany = (limiter: RateLimiter, key: string, count: number, nowMs: number) =>
  Array.from({ length: count }, () => limiter.take(key, nowMs));

describe('RateLimiter', () => {
  it('allows a full burst at once, counting down the remaining tokens', () => {
    const limiter = new RateLimiter(10, 5);
    expect(takeMany(limiter, KEY_A, 5, T0)).toEqual([
      { allowed: true, remaining: 4 },
      { allowed: true, remaining: 3 },
      { allowed: true, remaining: 2 },
      { allowed: true, remaining: 1 },
      { allowed: true, remaining: 0 },
    ]);
  });

  it('refuses the request after the burst with a Retry-After of at least one second', () => {
    const limiter = new RateLimiter(10, 5);
    takeMany(limiter, KEY_A, 5, T0);
    const refused = limiter.take(KEY_A, T0);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: expect.any(Number) });
    if (refused.allowed) throw new Error('unreachable');
    expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('keeps refusing while no token has refilled, without the refusals using up future tokens', () => {
    const limiter = new RateLimiter(1, 2);
    takeMany(limiter, KEY_A, 2, T0);
    expect(takeMany(limiter, KEY_A, 10, T0 + 500).every((r) => !r.allowed)).toBe(true);
    expect(limiter.take(KEY_A, T0 + 1000)).toEqual({ allowed: true, remaining: 0 });
  });

  it('refills at the sustained rate', () => {
    const limiter = new RateLimiter(10, 5);
    takeMany(limiter, KEY_A, 5, T0);
    expect(limiter.take(KEY_A, T0 + 99).allowed).toBe(false);
    expect(limiter.take(KEY_A, T0 + 100)).toEqual({ allowed: true, remaining: 0 });
    expect(limiter.take(KEY_A, T0 + 100).allowed).toBe(false);
    // Three tokens come back in 300 ms at 10 per second.
    expect(takeMany(limiter, KEY_A, 4, T0 + 400).map((r) => r.allowed)).toEqual([true, true, true, false]);
  });

  it('never refills beyond the burst, however long the key was idle', () => {
    const limiter = new RateLimiter(10, 5);
    takeMany(limiter, KEY_A, 5, T0);
    const afterAnHour = takeMany(limiter, KEY_A, 6, T0 + 3_600_000);
    expect(afterAnHour.map((r) => r.allowed)).toEqual([true, true, true, true, true, false]);
    expect(afterAnHour[0]).toEqual({ allowed: true, remaining: 4 });
  });

  it('tells a slow-rate caller how long to wait, and honours that wait', () => {
    const limiter = new RateLimiter(0.5, 1);
    expect(limiter.take(KEY_A, T0).allowed).toBe(true);
    expect(limiter.take(KEY_A, T0)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(limiter.take(KEY_A, T0 + 1000)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take(KEY_A, T0 + 2000)).toEqual({ allowed: true, remaining: 0 });
  });

  it('lets a caller in once it has waited the Retry-After it was given', () => {
    const limiter = new RateLimiter(3, 3);
    takeMany(limiter, KEY_A, 3, T0);
    const refused = limiter.take(KEY_A, T0 + 10);
    if (refused.allowed) throw new Error('expected a refusal');
    expect(limiter.take(KEY_A, T0 + 10 + refused.retryAfterSeconds * 1000).allowed).toBe(true);
  });

  it('keeps a separate bucket per API key', () => {
    const limiter = new RateLimiter(1, 2);
    takeMany(limiter, KEY_A, 2, T0);
    expect(limiter.take(KEY_A, T0).allowed).toBe(false);
    expect(takeMany(limiter, KEY_B, 2, T0)).toEqual([
      { allowed: true, remaining: 1 },
      { allowed: true, remaining: 0 },
    ]);
    expect(limiter.take(KEY_B, T0).allowed).toBe(false);
    expect(limiter.take(KEY_A, T0 + 1000)).toEqual({ allowed: true, remaining: 0 });
  });
});

describe('rate limiter memory', () => {
  it('drops buckets that have refilled once it holds too many, so passing keys cannot grow it forever', () => {
    const limiter = new RateLimiter(10, 5, 100);
    for (let i = 0; i < 100; i++) limiter.take(`10.0.0.${i}`, 0);
    expect(limiter.size).toBe(100);
    // One second later every bucket is full again: a new key prunes them all.
    limiter.take('10.0.1.0', 1_000);
    expect(limiter.size).toBe(1);
    // Buckets still refilling are kept (forgetting them would give their owners a fresh burst): at the
    // limit, a new key finds none to drop and is added beyond it.
    for (let i = 0; i < 100; i++) limiter.take(`10.0.2.${i}`, 2_000);
    limiter.take('10.0.3.0', 2_100);
    expect(limiter.size).toBe(101);
  });
});
