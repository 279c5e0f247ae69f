/**
 * Resolves once `predicate` holds, checking every few milliseconds; rejects after `timeoutMs`. For
 * conditions that have no signal of their own (a consumer in another system received a message).
 */
export function until(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      if (predicate()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error('condition not met in time'));
      setTimeout(check, 5);
    };
    check();
  });
}
