import type { PublicEventName } from '@cip/shared/contracts';
import type { ProjectedEvent, Projection } from './projection';
import type { ReadDocument } from './read-store.port';

/** A public Event before it gets its id and time (see PublicEvent in @cip/shared/contracts). */
export interface PublicEventDraft {
  eventName: PublicEventName;
  eventTargetId: string;
  userId?: string;
  /** Event-specific fields of spec part 6, merged over the entity snapshot. */
  fields?: Record<string, unknown>;
  /**
   * Set when one domain event gives rise to several Events of the same name (a settlement batch: one
   * `blockchainTransaction.confirmed` per wallet and type): it tells their ids apart. Absent: the id is
   * derived from the domain event and the name alone, as it always was.
   */
  idKey?: string;
  /**
   * Another entity's stream (of a topic the recorder maps) whose snapshot is the Event's body instead of this
   * event's entity: that entity as it stood at this domain event's log position. A `balance.updated` after a
   * `cardAuthorization.rejected` carries the wallet, which the rejection did not change.
   */
  snapshotOf?: string;
}

/**
 * How one context's domain events become public Events. The snapshot is the entity after the event, kept
 * by the context's own read-model projection function, so the body of every Event is the entity as the
 * distributor would read it at that moment.
 */
export interface PublicEventMapper<Snapshot extends ReadDocument = ReadDocument> {
  /** Stream category of the entity. */
  topic: string;
  snapshot: Projection<Snapshot>;
  toPublicEvents(event: ProjectedEvent, snapshot: Snapshot | null): PublicEventDraft[];
  /**
   * How the Events already recorded show an erasure of personal data: `userOf` names the user an event
   * erases (null for other events), and `redact` turns the data of each of that user's recorded Events
   * into its erased form. Replays reach the same result: the erased fields read as null in the log.
   */
  erasure?: {
    userOf(event: ProjectedEvent): string | null;
    redact(data: Record<string, unknown>): Record<string, unknown>;
  };
}
