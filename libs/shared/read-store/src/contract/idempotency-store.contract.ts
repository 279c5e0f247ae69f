import { randomUUID } from 'node:crypto';
import type { IdempotencyStore } from '../idempotency-store.port';

export interface IdempotencyStoreContractTarget {
  open(): Promise<IdempotencyStore>;
  cleanup(): Promise<void>;
}

const HOUR = 3_600_000;

export function idempotencyStoreContract(target: IdempotencyStoreContractTarget): void {
  let store: IdempotencyStore;
  const now = Date.UTC(2026, 0, 1);
  const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"usr-1"}' };

  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('lets exactly one of concurrent claims of a key win; the others see it in flight', async () => {
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 8 }, () => store.claim(key, now, 30_000)));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    for (const r of results.filter((x) => !x.claimed)) {
      expect(r).toEqual({ claimed: false, record: { state: 'in_flight', leaseUntil: now + 30_000 } });
    }
  });

  it('returns the stored response until it expires, then lets the key be claimed again', async () => {
    const key = randomUUID();
    await store.claim(key, now, 30_000);
    await store.complete(key, response, now + 24 * HOUR);
    expect(await store.claim(key, now + 23 * HOUR, 30_000)).toEqual({
      claimed: false,
      record: { state: 'completed', response, expiresAt: now + 24 * HOUR },
    });
    expect(await store.claim(key, now + 24 * HOUR + 1, 30_000)).toEqual({ claimed: true });
  });

  it('takes over an in-flight claim whose lease has passed (the first process died)', async () => {
    const key = randomUUID();
    await store.claim(key, now, 30_000);
    expect((await store.claim(key, now + 29_000, 30_000)).claimed).toBe(false);
    expect((await store.claim(key, now + 30_001, 30_000)).claimed).toBe(true);
  });

  it('releases a claim without storing an outcome', async () => {
    const key = randomUUID();
    await store.claim(key, now, 30_000);
    await store.release(key);
    expect((await store.claim(key, now, 30_000)).claimed).toBe(true);
  });

  it('purges expired records only', async () => {
    const live = randomUUID();
    const old = randomUUID();
    await store.claim(live, now, 30_000);
    await store.complete(live, response, now + 24 * HOUR);
    await store.claim(old, now, 30_000);
    await store.complete(old, response, now + 1000);
    expect(await store.purgeExpired(now + 2000)).toBeGreaterThanOrEqual(1);
    expect((await store.claim(live, now + 2000, 30_000)).claimed).toBe(false);
    expect((await store.claim(old, now + 2000, 30_000)).claimed).toBe(true);
  });
}
