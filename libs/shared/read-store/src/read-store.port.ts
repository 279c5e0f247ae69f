import type { FindPage, FindResult, SortField } from '@cip/shared/contracts';
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

export type { FindPage, FindResult, SortField };

export interface FindQuery extends FindPage {
  /** Equality filters on top-level fields; every one must match. */
  filter: Record<string, FilterValue>;
}

export interface VersionedWrite<T extends ReadDocument = ReadDocument> {
  id: string;
  /** The new document, or null to delete it (a tombstone keeps the version so late events stay ignored). */
  doc: T | null;
  version: number;
}

export interface StoredDocument<T extends ReadDocument = ReadDocument> {
  doc: T | null;
  version: number;
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
  find<T extends ReadDocument>(collection: string, query: FindQuery): Promise<FindResult<T>>;
  /** Every live document, in id order (verification and export; not for request paths). */
  all<T extends ReadDocument>(collection: string): Promise<T[]>;
  /** Removes every document of a collection (projection rebuilds). */
  clear(collection: string): Promise<void>;
  close(): Promise<void>;
}
