// ---------------------------------------------------------------------------------------------------
// The ids a wallet has used, bounded and immutable.
//
// A wallet refuses to post the same id twice (a retried deposit, refund, fee, or a release of a hold
// already closed). Keeping every id ever used would grow without bound (card authorizations add one per
// hold), and copying a set on every event would make folding a long stream quadratic. So a wallet keeps
// the most recent RECENT_ID_CAPACITY ids in an immutable structure that shares its parts between
// successive states: a short array of the newest ids and a few frozen sets of older ones. Adding an id
// copies at most CHUNK + MAX_CHUNKS references; a state, once built, never changes (folding an event
// into a state leaves the previous state as it was).
//
// Why forgetting beyond the window is safe: the ids come from their owners, who keep their own record
// of what they posted, and retry within seconds or minutes, far inside the window of the last 8,192
// postings of one wallet. Holds are placed, settled and released by card authorizations, whose own
// stream says whether a hold was already settled; withdrawals get fresh ids from the service and their
// payouts are journaled on the wallet stream; deposits are posted once per chain log by the watcher,
// whose checkpoint only moves forward, and the wallets service also looks a deposit up by its
// deterministic transaction id before crediting it.
// ---------------------------------------------------------------------------------------------------

const CHUNK = 128;
const MAX_CHUNKS = 64;
/** How many of the most recent ids a wallet remembers. */
export const RECENT_ID_CAPACITY = CHUNK * MAX_CHUNKS;

export interface RecentIds {
  /** The newest ids, oldest first (at most CHUNK). */
  readonly newest: readonly string[];
  /** Frozen sets of older ids, oldest first (at most MAX_CHUNKS - 1, so the total stays at the capacity). */
  readonly older: readonly ReadonlySet<string>[];
}

export const NO_RECENT_IDS: RecentIds = Object.freeze({
  newest: Object.freeze([]),
  older: Object.freeze([]),
});

export function hasRecentId(ids: RecentIds, id: string): boolean {
  return ids.newest.includes(id) || ids.older.some((chunk) => chunk.has(id));
}

/** The ids with `id` added (the given ones are left untouched). */
export function withRecentId(ids: RecentIds, id: string): RecentIds {
  if (hasRecentId(ids, id)) return ids;
  if (ids.newest.length < CHUNK) return { newest: [...ids.newest, id], older: ids.older };
  const older = [...ids.older, new Set(ids.newest) as ReadonlySet<string>];
  return { newest: [id], older: older.length >= MAX_CHUNKS ? older.slice(1) : older };
}

/** How many ids are remembered. */
export const recentIdCount = (ids: RecentIds): number =>
  ids.newest.length + ids.older.reduce((count, chunk) => count + chunk.size, 0);
