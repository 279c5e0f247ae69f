/** One 5xx answer of the API, as operators see it on the health page (no body, no query, no key). */
export interface ServerErrorRecord {
  at: string;
  method: string;
  /** The route template (`/v1/users/:userId`), never the path with its ids. */
  route: string;
  status: number;
  requestId: string;
}

const WINDOW_MS = 60 * 60 * 1000;
const BUCKET_MS = 60 * 1000;

/**
 * The API's recent server errors, in memory: a count per minute over the last hour and the last ten answers
 * (the backoffice's health page). Bounded whatever the error rate: 60 counters and 10 records.
 */
export class RecentServerErrors {
  private readonly buckets = new Map<number, number>();
  private readonly last: ServerErrorRecord[] = [];

  record(error: ServerErrorRecord): void {
    const minute = Math.floor(Date.parse(error.at) / BUCKET_MS);
    this.buckets.set(minute, (this.buckets.get(minute) ?? 0) + 1);
    for (const key of this.buckets.keys()) {
      if (key <= minute - WINDOW_MS / BUCKET_MS) this.buckets.delete(key);
    }
    this.last.unshift(error);
    this.last.length = Math.min(this.last.length, 10);
  }

  /** How many in the hour before `now`, and the last ten (newest first). */
  summary(now: Date): { lastHour: number; last: ServerErrorRecord[] } {
    const minute = Math.floor(now.getTime() / BUCKET_MS);
    let lastHour = 0;
    for (const [key, count] of this.buckets) {
      if (key > minute - WINDOW_MS / BUCKET_MS && key <= minute) lastHour += count;
    }
    return { lastHour, last: [...this.last] };
  }
}
