/** The fields lists can be sorted by (API-DECISIONS.md, "Lists"). */
export type SortField = 'createdAt' | 'updatedAt';

/**
 * Keyset pagination, as Stripe's `starting_after` / `ending_before`: the page right after, or right
 * before, the item with this id, in the list's order. Unlike a page index it neither repeats nor skips an
 * item when new ones arrive between two reads.
 */
export type ListCursor = { startingAfter: string } | { endingBefore: string };

/** Which page of a list, in which order: what every list method of a context API takes besides its filter. */
export interface FindPage {
  sort: { field: SortField; direction: 'asc' | 'desc' };
  /** 0-based page index; ignored when a cursor is given. */
  page: number;
  /** Page size, 1..100 at the API. */
  limit: number;
  cursor?: ListCursor;
}

export interface FindResult<T> {
  items: T[];
  /** Whether more items follow this page in the direction read (before it, for `endingBefore`). */
  hasMore: boolean;
}
