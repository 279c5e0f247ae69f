/**
 * Token bucket per API key: `ratePerSecond` sustained, up to `burst` at once. In the distributed runtime
 * each gateway replica keeps its own buckets (the limit then scales with replicas, documented in the README).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    /** Above this many buckets, the ones that have refilled (and so say nothing) are dropped. */
    private readonly maxBuckets = 100_000,
  ) {}

  /** Takes one token; returns the tokens left, or the seconds to wait when none is left. */
  take(
    key: string,
    nowMs: number,
  ): { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number } {
    if (this.buckets.size >= this.maxBuckets && !this.buckets.has(key)) this.prune(nowMs);
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedAt: nowMs };
    bucket.tokens = Math.min(
      this.burst,
      bucket.tokens + ((nowMs - bucket.updatedAt) / 1000) * this.ratePerSecond,
    );
    bucket.updatedAt = nowMs;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) {
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond)),
      };
    }
    bucket.tokens -= 1;
    return { allowed: true, remaining: Math.floor(bucket.tokens) };
  }

  /** How many keys have a bucket (tests, metrics). */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Drops the buckets that are full again: forgetting them changes no answer, and keys that come and go
   * (client addresses) cannot grow the map without bound.
   */
  private prune(nowMs: number): void {
    const refillMs = (this.burst / this.ratePerSecond) * 1000;
    for (const [key, bucket] of this.buckets)
      if (nowMs - bucket.updatedAt >= refillMs) this.buckets.delete(key);
  }
}
