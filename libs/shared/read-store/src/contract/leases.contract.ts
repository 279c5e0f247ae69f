import { randomUUID } from 'node:crypto';
import type { Leases } from '../leases.port';

export interface LeasesContractTarget {
  open(): Promise<Leases>;
  cleanup(): Promise<void>;
}

/** Long enough that a term granted in a test is still running at its next line, even on a loaded machine. */
const LONG_MS = 60_000;
/** Short enough to wait for: a term that lapses within the test. */
const SHORT_MS = 300;
const EXPIRY_BOUND_MS = 10_000;

/** Polls `attempt` until it answers non-null, for at most EXPIRY_BOUND_MS (the lease's expiry is the signal). */
async function until<T>(attempt: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + EXPIRY_BOUND_MS;
  for (;;) {
    const result = await attempt();
    if (result !== null) return result;
    if (Date.now() > deadline) throw new Error(`not granted within ${EXPIRY_BOUND_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function leasesContract(target: LeasesContractTarget): void {
  let leases: Leases;

  beforeAll(async () => {
    leases = await target.open();
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('grants a free lease, refuses it to another holder while the term runs, and renews it for its holder', async () => {
    const name = randomUUID();
    const first = await leases.acquire(name, 'a', LONG_MS);
    expect(first).toEqual({ fencingToken: expect.any(Number) });
    expect(await leases.acquire(name, 'b', LONG_MS)).toBeNull();
    expect(await leases.acquire(name, 'a', LONG_MS)).toEqual(first);
    expect(await leases.acquire(name, 'b', LONG_MS)).toBeNull();
  });

  it('grants exactly one of concurrent acquisitions of a free lease', async () => {
    const name = randomUUID();
    const holders = Array.from({ length: 8 }, (_, i) => `holder-${i}`);
    const results = await Promise.all(holders.map((holder) => leases.acquire(name, holder, LONG_MS)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });

  it('lets another holder take the lease once its term lapsed, with a greater fencing token', async () => {
    const name = randomUUID();
    const first = await leases.acquire(name, 'a', SHORT_MS);
    expect(first).not.toBeNull();
    const second = await until(() => leases.acquire(name, 'b', LONG_MS));
    expect(second.fencingToken).toBeGreaterThan(first!.fencingToken);
    // The lapsed holder is refused now: its renewal comes too late.
    expect(await leases.acquire(name, 'a', LONG_MS)).toBeNull();
  });

  it('extends a term from each renewal: a renewed lease outlives its first ttl', async () => {
    const name = randomUUID();
    const first = await leases.acquire(name, 'a', SHORT_MS);
    // Renewed with a long ttl: still refused to another holder well after the short one would have lapsed.
    expect(await leases.acquire(name, 'a', LONG_MS)).toEqual(first);
    const start = Date.now();
    while (Date.now() - start < SHORT_MS * 3) {
      expect(await leases.acquire(name, 'b', LONG_MS)).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, SHORT_MS / 2));
    }
  });

  it('frees the lease on release by its holder, not by another; the next term has a greater token', async () => {
    const name = randomUUID();
    const first = await leases.acquire(name, 'a', LONG_MS);
    await leases.release(name, 'b');
    expect(await leases.acquire(name, 'b', LONG_MS)).toBeNull();
    await leases.release(name, 'a');
    const second = await leases.acquire(name, 'b', LONG_MS);
    expect(second!.fencingToken).toBeGreaterThan(first!.fencingToken);
    // The same holder taking it again after a release starts a new term too.
    await leases.release(name, 'b');
    const third = await leases.acquire(name, 'b', LONG_MS);
    expect(third!.fencingToken).toBeGreaterThan(second!.fencingToken);
  });

  it('keeps leases of different names apart', async () => {
    const [one, two] = [randomUUID(), randomUUID()];
    expect(await leases.acquire(one, 'a', LONG_MS)).not.toBeNull();
    expect(await leases.acquire(two, 'b', LONG_MS)).not.toBeNull();
    expect(await leases.acquire(one, 'b', LONG_MS)).toBeNull();
    await leases.release(two, 'a');
    expect(await leases.acquire(two, 'a', LONG_MS)).toBeNull();
  });
}
