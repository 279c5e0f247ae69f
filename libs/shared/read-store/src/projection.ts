import type { ReadDocument } from './read-store.port';

/** The part of a recorded event that projections read (structurally a RecordedEvent of the event store). */
export interface ProjectedEvent {
  streamId: string;
  revision: number;
  position: number;
  type: string;
  data: Record<string, unknown>;
  metadata: { eventId: string; occurredAt: string; distributorId?: string };
}

/**
 * A projection (HOUSE-STYLE.md): `(doc | null, event) => doc | null`, one document per stream, stored
 * with the revision of the last event applied so that a replayed or redelivered event changes nothing.
 * Projections are rebuilt from position 0 on demand.
 */
export interface Projection<Doc extends ReadDocument = ReadDocument> {
  /** Unique name; the consumer group is `projection.<name>`. */
  name: string;
  collection: string;
  /** Stream categories it reads. */
  topics: string[];
  /**
   * Fields its documents are looked up by without the tenant (a card's payments, a deposit address's
   * wallet): each gets an index in the read store (`ReadStore.ensureIndexes`), so such a lookup costs the
   * matching documents, not the collection.
   */
  indexes?: readonly string[];
  evolve(doc: Doc | null, event: ProjectedEvent): Doc | null;
}
