/**
 * One timer per interval for every caller of the process (the head watchers of its three stores): an idle
 * process pays for each wake-up of its event loop far more than for the query it then runs (on this
 * 2-core machine a bare 25 ms interval costs about 0.9% of a core, a query of the log's head about 8 µs),
 * so three stores ticking apart would cost three times as much for nothing.
 */
const tickers = new Map<number, { timer: NodeJS.Timeout; callbacks: Set<() => void> }>();

/** Calls `callback` every `intervalMs` until the returned function is called. */
export function everyTick(intervalMs: number, callback: () => void): () => void {
  let ticker = tickers.get(intervalMs);
  if (!ticker) {
    const callbacks = new Set<() => void>();
    ticker = { callbacks, timer: setInterval(() => callbacks.forEach((tick) => tick()), intervalMs) };
    tickers.set(intervalMs, ticker);
  }
  const { callbacks, timer } = ticker;
  callbacks.add(callback);
  return () => {
    callbacks.delete(callback);
    if (callbacks.size > 0) return;
    clearInterval(timer);
    if (tickers.get(intervalMs)?.timer === timer) tickers.delete(intervalMs);
  };
}
