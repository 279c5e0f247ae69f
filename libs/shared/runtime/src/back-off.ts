/**
 * A retry pause that a shutdown can cut short: a consumer or relay waiting out a back-off must not keep
 * `stop()` waiting for seconds.
 */
export class InterruptibleBackOff {
  private wake: (() => void) | null = null;

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Ends the pause in progress, if any. */
  interrupt(): void {
    this.wake?.();
  }
}
