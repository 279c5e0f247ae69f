/** The fields lists can be sorted by (API-DECISIONS.md, "Lists"). */
export type SortField = 'createdAt' | 'updatedAt';

/** Which page of a list, in which order: what every list method of a context API takes besides its filter. */
export interface FindPage {
  sort: { field: SortField; direction: 'asc' | 'desc' };
  /** 0-based page index. */
  page: number;
  /** Page size, 1..100 at the API. */
  limit: number;
}

export interface FindResult<T> {
  items: T[];
  hasMore: boolean;
}
