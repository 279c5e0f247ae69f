import type { DomainEventRef } from '@cip/events/contract';
import { categoryOf } from '@cip/shared/eventing';
import { deterministicUuid } from '@cip/shared/runtime';
import type {
  ProjectedEvent,
  PublicEventMapper,
  ReadDocument,
  ReadStore,
  VersionedWrite,
} from '@cip/shared/read-store';
import { EVENT_RECORDS, EventRecord, LEGACY_EVENT_SOURCES } from './event-record';

/** How the recorder reads an entity's earlier events when it does not hold its snapshot (the event store). */
export interface StreamHistory {
  readStream(
    streamId: string,
    options: { fromRevision: number; maxCount: number },
  ): Promise<ProjectedEvent[]>;
}

/** An entity as its context's projection folds it, after the event of `revision` (-1: before any). */
interface Snapshot {
  doc: ReadDocument | null;
  revision: number;
  /** The log position of the event of `revision` (-1: not known, or before any). */
  position: number;
}

/** Entities whose snapshot stays in memory, per store; an entity beyond is folded again from its stream. */
const SNAPSHOTS_HELD = 10_000;

/**
 * Turns domain events into public Event records (GET /v1/events, webhook deliveries), one document per
 * Event. For each domain event it advances the entity snapshot with the owning context's projection and
 * asks the context's mapper which public Events the occurrence produces; the Event's data is that
 * snapshot plus the Event's fields. The Event id is derived from the domain event id and the Event name,
 * so a replay or a rebuild yields the same ids and never a duplicate.
 *
 * The snapshot is stored nowhere but in the Events: the recorder holds the latest snapshot of recently
 * changed entities in memory (a new entity costs no read at all), and folds the entity's stream from the
 * event store when it does not hold it (after a restart, an eviction, or events another process recorded).
 * An entity's snapshot is kept only once the batch's records are written, so a retried batch records
 * them again from the same snapshot, and the guarded writes change nothing.
 *
 * Each record carries its `origin` (the domain event's log position and its rank among the Events of that
 * domain event): with the tenant and the time, it is the key of the store's list index, so the webhook
 * dispatcher finds the Events of a domain event there (`findRecordedEvents`) without a second document.
 * A domain event without a distributor records nothing: no one could list or receive its Events.
 */
export class PublicEventRecorder {
  private readonly mappers = new Map<string, PublicEventMapper>();
  private readonly held = new WeakMap<ReadStore, Map<string, Snapshot>>();

  constructor(
    mappers: PublicEventMapper[],
    private readonly collection = EVENT_RECORDS,
  ) {
    for (const mapper of mappers) this.mappers.set(mapper.topic, mapper);
  }

  get topics(): string[] {
    return [...this.mappers.keys()];
  }

  async record(readStore: ReadStore, events: ProjectedEvent[], history: StreamHistory): Promise<void> {
    const held = this.heldFor(readStore);
    const advanced = new Map<string, Snapshot>();
    const records: VersionedWrite<EventRecord>[] = [];
    const erasures: { mapper: PublicEventMapper; userId: string; event: ProjectedEvent }[] = [];
    for (const event of events) {
      const mapper = this.mappers.get(categoryOf(event.streamId));
      if (!mapper) continue;
      const erasedUser = mapper.erasure?.userOf(event);
      if (erasedUser) erasures.push({ mapper, userId: erasedUser, event });
      let snapshot = advanced.get(event.streamId) ?? held.get(event.streamId);
      // Recorded already (a redelivered batch after its records were written).
      if (snapshot && event.revision <= snapshot.revision) continue;
      if ((snapshot?.revision ?? -1) !== event.revision - 1) {
        snapshot = await this.fold(mapper, history, event.streamId, snapshot, event.revision);
      }
      const doc = mapper.snapshot.evolve(snapshot?.doc ?? null, event);
      advanced.set(event.streamId, { doc, revision: event.revision, position: event.position });
      // An Event no distributor owns is read by no one and delivered to no one: the snapshot advances, no
      // record is written.
      const distributorId = event.metadata.distributorId;
      if (!distributorId) continue;
      const entity = doc ? withoutTenant(doc) : {};
      const drafts = mapper.toPublicEvents(event, doc);
      const bodies: Record<string, unknown>[] = [];
      for (const draft of drafts) {
        const other = draft.snapshotOf
          ? await this.snapshotAt(draft.snapshotOf, event, [advanced, held], history)
          : null;
        bodies.push(other ? withoutTenant(other) : entity);
      }
      drafts.forEach((draft, index) => {
        const id =
          draft.idKey === undefined
            ? deterministicUuid(event.metadata.eventId, draft.eventName)
            : deterministicUuid(event.metadata.eventId, draft.eventName, draft.idKey);
        const listPosition = listPositionOf(event.position, index);
        records.push({
          id,
          version: event.position,
          positions: { created: listPosition, updated: listPosition },
          doc: {
            id,
            eventId: id,
            eventName: draft.eventName,
            eventTargetId: draft.eventTargetId,
            ...(draft.userId ? { userId: draft.userId } : {}),
            data: { ...bodies[index], ...draft.fields },
            distributorId,
            createdAt: event.metadata.occurredAt,
            updatedAt: event.metadata.occurredAt,
            origin: { position: event.position, index },
          },
        });
      });
    }
    if (records.length) await readStore.upsertMany(this.collection, records);
    for (const erasure of erasures) await this.redact(readStore, erasure);
    for (const [streamId, snapshot] of advanced) {
      held.delete(streamId);
      held.set(streamId, snapshot);
    }
    // A Map iterates in insertion order: the first keys are the entities changed longest ago.
    for (const streamId of held.keys()) {
      if (held.size <= SNAPSHOTS_HELD) break;
      held.delete(streamId);
    }
  }

  /**
   * Another entity (`streamId`) as it stood at `at`'s log position: its events before that position folded
   * onto what is held (when held before that position), read from its stream. Read-only: what is held moves
   * only with the entity's own events.
   */
  private async snapshotAt(
    streamId: string,
    at: ProjectedEvent,
    [advanced, held]: Map<string, Snapshot>[],
    history: StreamHistory,
  ): Promise<ReadDocument | null> {
    const mapper = this.mappers.get(categoryOf(streamId));
    if (!mapper) return null;
    const known = advanced.get(streamId) ?? held.get(streamId);
    const start = known && known.position < at.position ? known : { doc: null, revision: -1, position: -1 };
    let doc = start.doc;
    for (let from = start.revision + 1; ; from += OTHER_ENTITY_PAGE) {
      const events = await history.readStream(streamId, { fromRevision: from, maxCount: OTHER_ENTITY_PAGE });
      for (const event of events) {
        if (event.position >= at.position) return doc;
        doc = mapper.snapshot.evolve(doc, event);
      }
      if (events.length < OTHER_ENTITY_PAGE) return doc;
    }
  }

  private heldFor(readStore: ReadStore): Map<string, Snapshot> {
    let held = this.held.get(readStore);
    if (!held) this.held.set(readStore, (held = new Map()));
    return held;
  }

  /** The snapshot just before `revision`, folded from the log onward from what is held (or from the start). */
  private async fold(
    mapper: PublicEventMapper,
    history: StreamHistory,
    streamId: string,
    from: Snapshot | undefined,
    revision: number,
  ): Promise<Snapshot> {
    const start = from && from.revision < revision ? from : { doc: null, revision: -1, position: -1 };
    const earlier = await history.readStream(streamId, {
      fromRevision: start.revision + 1,
      maxCount: revision - start.revision - 1,
    });
    let doc = start.doc;
    let position = start.position;
    for (const event of earlier)
      if (event.revision < revision) {
        doc = mapper.snapshot.evolve(doc, event);
        position = event.position;
      }
    return { doc, revision: revision - 1, position };
  }

  /**
   * An erasure of a user's personal data reaches the Events already recorded about the user: each is
   * rewritten as the mapper redacts it, at the erasure's position (so a replay of an older event cannot
   * bring the data back, and a redelivered erasure changes nothing), keeping its place in lists.
   */
  private async redact(
    readStore: ReadStore,
    { mapper, userId, event }: { mapper: PublicEventMapper; userId: string; event: ProjectedEvent },
  ): Promise<void> {
    const redact = mapper.erasure?.redact;
    if (!redact) return;
    const filter = { userId, distributorId: event.metadata.distributorId ?? '' };
    const sort = { field: 'createdAt', direction: 'asc' } as const;
    for (let page = 0; ; page++) {
      const found = await readStore.find<EventRecord>(this.collection, {
        filter,
        sort,
        page,
        limit: REDACTION_PAGE,
      });
      const writes: VersionedWrite<EventRecord>[] = [];
      for (const record of found.items) {
        const stored = await readStore.getVersioned(this.collection, record.id);
        writes.push({
          id: record.id,
          version: event.position,
          positions: stored?.positions,
          doc: { ...record, data: redact(record.data) },
        });
      }
      await readStore.upsertMany(this.collection, writes);
      if (!found.hasMore) return;
    }
  }
}

const REDACTION_PAGE = 100;
/** Events read per page when folding another entity for an Event's body (`snapshotOf`). */
const OTHER_ENTITY_PAGE = 256;
/**
 * Slots per domain event in an Event's list position (the log position the list sorts its ties by): the
 * Events of one domain event share its time and log position, and are listed in the order its mapper gave
 * them (`balance.updated` after the `cardAuthorization.rejected` it follows), not by their ids. The webhook
 * dispatcher sends them in the same order (its `SEQUENCE_SLOTS`). Beyond 16 Events (a settlement batch's
 * many wallets) the rest share the last slot and go by id.
 */
const ORIGIN_SLOTS = 16;

function listPositionOf(position: number, index: number): number {
  return position * ORIGIN_SLOTS + Math.min(index, ORIGIN_SLOTS - 1);
}
/** Events read per look-up of one domain event's Events (a settlement batch may have many). */
const LOOKUP_PAGE = 32;

function withoutTenant(doc: ReadDocument): Record<string, unknown> {
  const { distributorId: _distributorId, ...rest } = doc;
  return rest;
}

/**
 * The Event records produced from a domain event, in the order they were produced (none: it produced
 * none, or the recorder has not reached it yet). They are read from the tenant's list index, where the
 * Events of one domain event sit together under its time and log position; Events recorded before records
 * carried their origin are found through the index written beside them then.
 */
export async function findRecordedEvents(
  readStore: ReadStore,
  domainEvent: DomainEventRef,
): Promise<EventRecord[]> {
  const { position } = domainEvent;
  // Listed at their slots of the domain event's position; Events recorded before the slots, at the position.
  const found = await recordedAt(readStore, domainEvent, listPositionOf(position, 0));
  if (!found.length && position !== 0) found.push(...(await recordedAt(readStore, domainEvent, position)));
  if (found.length) return found.sort((a, b) => (a.origin?.index ?? 0) - (b.origin?.index ?? 0));
  const legacy = await readStore.get<{
    id: string;
    eventIds: string[];
    createdAt: string;
    updatedAt: string;
  }>(LEGACY_EVENT_SOURCES, domainEvent.eventId);
  const records: EventRecord[] = [];
  for (const id of legacy?.eventIds ?? []) {
    const record = await readStore.get<EventRecord>(EVENT_RECORDS, id);
    if (record) records.push(record);
  }
  return records;
}

/** The Events of a domain event listed from `listPosition` on, under its time (those of others stop the scan). */
async function recordedAt(
  readStore: ReadStore,
  domainEvent: DomainEventRef,
  listPosition: number,
): Promise<EventRecord[]> {
  const { position, occurredAt } = domainEvent;
  const found: EventRecord[] = [];
  let after = '';
  let from = listPosition;
  for (;;) {
    const page = await readStore.find<EventRecord>(EVENT_RECORDS, {
      filter: { distributorId: domainEvent.distributorId ?? '' },
      sort: { field: 'createdAt', direction: 'asc' },
      page: 0,
      limit: LOOKUP_PAGE,
      cursor: { side: 'after', key: { value: occurredAt, position: from, id: after } },
    });
    const ours = page.items.filter((r) => r.createdAt === occurredAt && r.origin?.position === position);
    found.push(...ours);
    if (!page.hasMore || ours.length < page.items.length) return found;
    const last = ours[ours.length - 1];
    after = last.id;
    from = listPositionOf(position, last.origin?.index ?? 0);
  }
}
