/**
 * Consumer lag as issue 16 measures it: how long after its command an event reached each consumer group,
 * read from the platform's `consumer_delay_seconds` histogram (GET /metrics) before and after a run. The
 * quantile is interpolated within the bucket, as Prometheus' histogram_quantile does.
 */
export type DelaySnapshot = Map<string, Map<number, number>>;

const BUCKET_LINE = /^consumer_delay_seconds_bucket\{([^}]*)\} (\S+)$/;

export async function readConsumerDelays(url: string): Promise<DelaySnapshot> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const snapshot: DelaySnapshot = new Map();
  for (const line of text.split('\n')) {
    const match = BUCKET_LINE.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!labels.store?.endsWith(':sandbox')) continue;
    const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
    const buckets = snapshot.get(labels.group) ?? new Map<number, number>();
    buckets.set(le, Number(match[2]));
    snapshot.set(labels.group, buckets);
  }
  return snapshot;
}

/** The worst group's p99 (ms) over what happened between two snapshots; null when nothing was measured. */
export function worstGroupP99(
  before: DelaySnapshot,
  after: DelaySnapshot,
): { group: string; p99Ms: number } | null {
  let worst: { group: string; p99Ms: number } | null = null;
  for (const [group, buckets] of after) {
    const bounds = [...buckets.keys()].sort((a, b) => a - b);
    const counts = bounds.map((le) => (buckets.get(le) ?? 0) - (before.get(group)?.get(le) ?? 0));
    const total = counts[counts.length - 1];
    if (!total) continue;
    const rank = 0.99 * total;
    const at = counts.findIndex((count) => count >= rank);
    const upper = bounds[at];
    const lower = at > 0 ? bounds[at - 1] : 0;
    const below = at > 0 ? counts[at - 1] : 0;
    const seconds = Number.isFinite(upper)
      ? lower + ((upper - lower) * (rank - below)) / Math.max(1, counts[at] - below)
      : lower;
    if (!worst || seconds * 1000 > worst.p99Ms) worst = { group, p99Ms: seconds * 1000 };
  }
  return worst;
}

/** Waits until every sandbox consumer group has processed the whole log (`consumer_lag_events` all 0). */
export async function waitForConsumersCaughtUp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const behind = text
      .split('\n')
      .filter((line) => line.startsWith('consumer_lag_events{') && line.includes(':sandbox"'))
      .some((line) => Number(line.slice(line.lastIndexOf(' ') + 1)) > 0);
    if (!behind) return;
    if (performance.now() > deadline) throw new Error(`consumers still behind after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
