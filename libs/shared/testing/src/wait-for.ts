/** How long a wait may take, and what it waits for: the failure message names what did not happen. */
export interface WaitBound {
  /** What is awaited, as the failure message names it: `'the deposit to 0x… credited'`. */
  what: string;
  /** Default 30 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

const timedOut = ({ what, timeoutMs = DEFAULT_TIMEOUT_MS }: WaitBound) =>
  new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);

/**
 * Resolves once `predicate` holds, checking every few milliseconds; rejects after the bound with a message
 * naming what did not happen. For conditions that have no signal of their own (a receiver got a request, a
 * balance shows a deposit); where a signal exists, await it with {@link within} instead.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  bound: WaitBound & { intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + (bound.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw timedOut(bound);
    await new Promise((resolve) => setTimeout(resolve, bound.intervalMs ?? 5));
  }
}

/**
 * For loops that end on their own condition (writers running until they kill a process): the returned check
 * throws, naming what did not happen, once the bound has passed.
 */
export function deadline(bound: WaitBound): () => void {
  const at = Date.now() + (bound.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return () => {
    if (Date.now() > at) throw timedOut(bound);
  };
}

/** The outcome of `promise`, or a rejection naming what did not happen once the bound has passed. */
export function within<T>(promise: Promise<T>, bound: WaitBound): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(bound)), bound.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
