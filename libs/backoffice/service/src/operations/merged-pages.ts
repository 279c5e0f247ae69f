import type { OperatorPage } from '@cip/backoffice/contract';
import { DomainError, type FindResult } from '@cip/shared/contracts';

/**
 * One list an operator page merges with others (one per distributor, or Events and audit entries): read in
 * the merged order, `after` an item id of its own (null: from the start).
 */
export interface MergeSource<T> {
  key: string;
  read(after: string | null, limit: number): Promise<FindResult<T>>;
  idOf(item: T): string;
}

/** Where each source of a merged list stands: the last item it gave, or `true` once it has given them all. */
type MergeState = Record<string, string | true>;

const refuseCursor = () =>
  new DomainError('validation_error', 'cursor is not a cursor of this list', [
    { field: 'cursor', message: 'must be the nextCursor of a previous page of this list' },
  ]);

function decodeCursor(cursor: string | undefined): MergeState {
  if (!cursor) return {};
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuseCursor();
  }
  if (typeof state !== 'object' || state === null || Array.isArray(state)) throw refuseCursor();
  for (const value of Object.values(state))
    if (value !== true && typeof value !== 'string') throw refuseCursor();
  return state as MergeState;
}

/**
 * One page of several keyset-paged lists merged by `newerFirst` (or older first): each source gives at most
 * `limit` items after its own position, the page takes the first `limit` of their merge, and the cursor
 * records each source's new position. Hand-written because every list of the platform pages by item id
 * within one tenant, and an operator page spans tenants (the distributors are few: one read per
 * distributor and page) or spans Events and audit entries.
 */
export async function mergePages<T>(
  sources: MergeSource<T>[],
  options: { limit: number; cursor?: string; order: (item: T) => string; direction: 'asc' | 'desc' },
): Promise<OperatorPage<T>> {
  const state = decodeCursor(options.cursor);
  const known = new Set(sources.map((source) => source.key));
  if (Object.keys(state).some((key) => !known.has(key))) throw refuseCursor();
  const reads = await Promise.all(
    sources.map(async (source) => {
      const position = state[source.key];
      if (position === true) return { source, items: [] as T[], hasMore: false };
      const result = await source.read(position ?? null, options.limit);
      return { source, items: result.items, hasMore: result.hasMore };
    }),
  );
  // A k-way merge of the heads keeps each source's own order (ties within a source included).
  const heads = reads.map(() => 0);
  const data: T[] = [];
  const before = (a: T, b: T) =>
    options.direction === 'desc' ? options.order(a) > options.order(b) : options.order(a) < options.order(b);
  while (data.length < options.limit) {
    let pick = -1;
    reads.forEach((read, index) => {
      const head = read.items[heads[index]];
      if (head !== undefined && (pick < 0 || before(head, reads[pick].items[heads[pick]]))) pick = index;
    });
    if (pick < 0) break;
    data.push(reads[pick].items[heads[pick]]);
    heads[pick]++;
  }
  const next: MergeState = {};
  let more = false;
  reads.forEach((read, index) => {
    const taken = heads[index];
    if (taken === read.items.length && !read.hasMore) {
      next[read.source.key] = true;
      return;
    }
    more = true;
    const position = taken > 0 ? read.source.idOf(read.items[taken - 1]) : state[read.source.key];
    if (position !== undefined) next[read.source.key] = position;
  });
  return { data, nextCursor: more ? Buffer.from(JSON.stringify(next)).toString('base64url') : null };
}

/**
 * A source that keeps only the items `keep` accepts, reading on until it has `limit` of them (or the list
 * ends, or `stop` says the rest cannot match: the list is in order and a date bound was passed).
 */
export function filteredSource<T>(
  source: MergeSource<T>,
  keep: (item: T) => boolean,
  stop: (item: T) => boolean = () => false,
): MergeSource<T> {
  return {
    key: source.key,
    idOf: source.idOf,
    async read(after, limit) {
      const kept: T[] = [];
      let position = after;
      for (;;) {
        const page = await source.read(position, limit);
        for (const item of page.items) {
          if (stop(item)) return { items: kept, hasMore: false };
          if (keep(item)) kept.push(item);
          if (kept.length === limit) return { items: kept, hasMore: true };
        }
        if (!page.hasMore || page.items.length === 0) return { items: kept, hasMore: false };
        position = source.idOf(page.items[page.items.length - 1]);
      }
    },
  };
}
