// ---------------------------------------------------------------------------------------------------
// The UTC windows of the interval limits. Hand-written rather than a date library: the platform has none,
// and each window start is one Date.UTC call on integer fields, exact for every instant a Date holds (no
// time zones, no daylight saving, no calendar arithmetic beyond the weekday).
// ---------------------------------------------------------------------------------------------------

export const WINDOW_INTERVALS = ['daily', 'weekly', 'monthly', 'yearly', 'all_time'] as const;
export type WindowInterval = (typeof WINDOW_INTERVALS)[number];

const DAY_MS = 24 * 60 * 60 * 1000;

/** Half-open window [start, end) in epoch milliseconds. */
export interface SpendingWindow {
  start: number;
  end: number;
}

/**
 * The window of `interval` that holds the instant `at` (epoch ms): the UTC day; the ISO 8601 week, from
 * Monday 00:00 UTC; the UTC calendar month; the UTC calendar year; or all time.
 */
export function windowOf(interval: WindowInterval, at: number): SpendingWindow {
  const d = new Date(at);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth();
  const dayStart = Date.UTC(year, month, d.getUTCDate());
  switch (interval) {
    case 'daily':
      return { start: dayStart, end: dayStart + DAY_MS };
    case 'weekly': {
      // getUTCDay() counts from Sunday (0); ISO weeks count from Monday.
      const start = dayStart - ((d.getUTCDay() + 6) % 7) * DAY_MS;
      return { start, end: start + 7 * DAY_MS };
    }
    case 'monthly':
      // Date.UTC carries month 12 into January of the next year.
      return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
    case 'yearly':
      return { start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1) };
    case 'all_time':
      return { start: -Infinity, end: Infinity };
    default: {
      const unknown: never = interval;
      throw new Error(`Unknown spending window ${String(unknown)}`);
    }
  }
}
