/** Where a long operation is (`export log`, `projections rebuild`), for the operator watching it. */
export interface Progress {
  /** Reports progress; the line is built and printed only when the last one is older than the interval. */
  update(describe: () => string): void;
  /** The closing line, always printed. */
  done(line: string): void;
}

export const NO_PROGRESS: Progress = { update: () => undefined, done: () => undefined };

/** How often progress lines are printed at most. */
export const PROGRESS_INTERVAL_MS = 500;

/**
 * Progress lines `<label>: <text>` written with `write` (stderr, so stdout stays the command's output),
 * throttled by time: an export of millions of events prints two lines a second, not one a page.
 */
export function progressLines(
  label: string,
  write: (chunk: string) => void,
  now: () => number = () => performance.now(),
  intervalMs = PROGRESS_INTERVAL_MS,
): Progress {
  let last = now();
  return {
    update(describe) {
      const at = now();
      if (at - last < intervalMs) return;
      last = at;
      write(`${label}: ${describe()}\n`);
    },
    done(line) {
      write(`${label}: ${line}\n`);
    },
  };
}
