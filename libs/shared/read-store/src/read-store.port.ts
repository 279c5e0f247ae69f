import type { FindPage, FindResult, ListCursor, SortField } from '@cip/shared/contracts';
/**
 * The read-model store port: JSON documents per collection, each stored with the version of the last
 * event applied to it (a stream revision or a global position). A write carrying a version not above the
 * stored one is ignored, so replays and redeliveries change nothing.
 */

export interface ReadDocument {
  id: string;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

export type FilterValue = string | number | boolean | null;

export type { FindPage, FindResult, ListCursor, SortField };

/**
 * Where in the event log a document comes from: the global position of the event that created it and of
 * the last event applied to it. Lists order documents of one `createdAt` (or `updatedAt`) millisecond by
 * these, so ties follow the log and the order never changes between two reads.
 */
export interface LogPositions {
  created: number;
  updated: number;
}

/** A document's place in a list sorted by one field: the field's value, then its log position, then its id. */
export interface SortKey {
  value: string;
  position: number;
  id: string;
}

export interface FindQuery extends Omit<FindPage, 'cursor'> {
  /** Equality filters on top-level fields; every one must match. */
  filter: Record<string, FilterValue>;
  /**
   * Keyset pagination: only documents strictly after (or before) this key in the requested order, and then
   * `page` is ignored. `before` still returns its page in the requested order: the `limit` documents just
   * before the key, and `hasMore` says whether more precede them.
   */
  cursor?: { side: 'after' | 'before'; key: SortKey };
}

export interface VersionedWrite<T extends ReadDocument = ReadDocument> {
  id: string;
  /** The new document, or null to delete it (a tombstone keeps the version so late events stay ignored). */
  doc: T | null;
  version: number;
  /** Absent for documents not derived from the log (both 0: their ties fall to the id). */
  positions?: LogPositions;
}

export interface StoredDocument<T extends ReadDocument = ReadDocument> {
  doc: T | null;
  version: number;
  positions: LogPositions;
}

/**
 * How an adapter reads the page `query` asks for: the direction to scan (a page before the cursor is read
 * backwards from it), and how the `limit + 1` rows read become the page, in the requested order.
 */
export function pageReading(query: FindQuery): {
  ascending: boolean;
  page<T>(rows: T[]): FindResult<T>;
} {
  const backwards = query.cursor?.side === 'before';
  return {
    ascending: (query.sort.direction === 'asc') !== backwards,
    page: (rows) => {
      const items = rows.slice(0, query.limit);
      return { items: backwards ? items.reverse() : items, hasMore: rows.length > query.limit };
    },
  };
}

/** The key of a stored document in a list sorted by `field` (a cursor's anchor), or null for a tombstone. */
export function sortKeyOf(id: string, stored: StoredDocument, field: SortField): SortKey | null {
  if (!stored.doc) return null;
  return field === 'createdAt'
    ? { value: stored.doc.createdAt, position: stored.positions.created, id }
    : { value: stored.doc.updatedAt, position: stored.positions.updated, id };
}

export interface ReadStore {
  /**
   * Applies writes whose version is above the stored version of their document; returns how many applied.
   * Writes of one call are applied atomically where the adapter can (SQLite: one transaction).
   */
  upsertMany<T extends ReadDocument>(collection: string, writes: VersionedWrite<T>[]): Promise<number>;
  /** A document and its version, or null when never written (a deleted document has `doc: null`). */
  getVersioned<T extends ReadDocument>(collection: string, id: string): Promise<StoredDocument<T> | null>;
  get<T extends ReadDocument>(collection: string, id: string): Promise<T | null>;
  /**
   * A page of the live documents matching the filter, ordered by the sort field, then the log position
   * that goes with it (created or updated), then the id, all in the sort direction: a total order, so pages
   * never overlap and a cursor never repeats or skips a document whose key did not change.
   */
  find<T extends ReadDocument>(collection: string, query: FindQuery): Promise<FindResult<T>>;
  /**
   * Live documents whose `expiresAt` (an ISO-8601 instant) is at or before `at`, earliest first, then by id;
   * `after` resumes past the last one read. The deadline sweeps' one read: an index on `expiresAt` serves it,
   * so a sweep costs what has fallen due, not the size of the collection. A read model whose documents keep
   * `expiresAt` after their deadline stops mattering (decided challenges) is not for this: it must drop the
   * field (or the document) once nothing is due on it.
   */
  expiredBy<T extends ReadDocument & { expiresAt: string }>(
    collection: string,
    at: string,
    page: { after?: { expiresAt: string; id: string }; limit: number },
  ): Promise<T[]>;
  /**
   * Indexes the documents of `collection` by each of `fields`, in list order (`createdAt`, then log position,
   * then id), for the lookups a read model makes without the tenant; a `find` whose filter names one of
   * these fields reads that index. Idempotent: the consumer of the read model calls it before it starts.
   */
  ensureIndexes(collection: string, fields: readonly string[]): Promise<void>;
  /** Every live document, in id order (verification and export; not for request paths). */
  all<T extends ReadDocument>(collection: string): Promise<T[]>;
  /** Removes every document of a collection (projection rebuilds). */
  clear(collection: string): Promise<void>;
  close(): Promise<void>;
}
