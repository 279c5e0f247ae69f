import { categoryOf } from '@cip/shared/eventing';
import { deterministicUuid } from '@cip/shared/runtime';
import type {
  ProjectedEvent,
  PublicEventMapper,
  ReadDocument,
  ReadStore,
  VersionedWrite,
} from '@cip/shared/read-store';
import { EVENT_RECORDS, EVENT_SNAPSHOTS, EVENT_SOURCES, EventRecord } from './event-record';

/** The public Events recorded from one domain event (an empty list: it produced none). */
export interface EventSource {
  id: string;
  eventIds: string[];
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/**
 * Turns domain events into public Event records (GET /v1/events; later, webhook deliveries). For each
 * event it advances the entity snapshot with the owning context's projection and asks the context's
 * mapper which public Events the occurrence produces. The Event id is derived from the domain event id
 * and the Event name, so a replay or a rebuild yields the same ids and never a duplicate.
 *
 * Records are written before snapshots: after a crash between the two, the replay recomputes the same
 * snapshot and the guarded record writes change nothing.
 *
 * Beside the records, each domain event gets an `event_sources` entry listing the Event ids it produced
 * (possibly none). Consumers that come after the recorder on the log (the webhook dispatcher) look the
 * Events of a domain event up there instead of mapping it a second time; a missing entry means the
 * recorder has not reached that event yet.
 */
export class PublicEventRecorder {
  private readonly mappers = new Map<string, PublicEventMapper>();

  constructor(
    mappers: PublicEventMapper[],
    private readonly collections = {
      records: EVENT_RECORDS,
      snapshots: EVENT_SNAPSHOTS,
      sources: EVENT_SOURCES,
    },
  ) {
    for (const mapper of mappers) this.mappers.set(mapper.topic, mapper);
  }

  get topics(): string[] {
    return [...this.mappers.keys()];
  }

  async record(readStore: ReadStore, events: ProjectedEvent[]): Promise<void> {
    const snapshots = new Map<string, { doc: ReadDocument | null; version: number; changed: boolean }>();
    const records: VersionedWrite<EventRecord>[] = [];
    const sources: VersionedWrite<EventSource>[] = [];
    const erasures: { mapper: PublicEventMapper; userId: string; event: ProjectedEvent }[] = [];
    for (const event of events) {
      const mapper = this.mappers.get(categoryOf(event.streamId));
      if (!mapper) continue;
      const erasedUser = mapper.erasure?.userOf(event);
      if (erasedUser) erasures.push({ mapper, userId: erasedUser, event });
      let snapshot = snapshots.get(event.streamId);
      if (!snapshot) {
        const stored = await readStore.getVersioned(this.collections.snapshots, event.streamId);
        snapshot = { doc: stored?.doc ?? null, version: stored?.version ?? -1, changed: false };
        snapshots.set(event.streamId, snapshot);
      }
      if (event.revision <= snapshot.version) continue;
      snapshot.doc = mapper.snapshot.evolve(snapshot.doc, event);
      snapshot.version = event.revision;
      snapshot.changed = true;
      const entity = snapshot.doc ? withoutTenant(snapshot.doc) : {};
      const eventIds: string[] = [];
      for (const draft of mapper.toPublicEvents(event, snapshot.doc)) {
        const id =
          draft.idKey === undefined
            ? deterministicUuid(event.metadata.eventId, draft.eventName)
            : deterministicUuid(event.metadata.eventId, draft.eventName, draft.idKey);
        eventIds.push(id);
        records.push({
          id,
          version: event.position,
          positions: { created: event.position, updated: event.position },
          doc: {
            id,
            eventId: id,
            eventName: draft.eventName,
            eventTargetId: draft.eventTargetId,
            ...(draft.userId ? { userId: draft.userId } : {}),
            data: { ...entity, ...draft.fields },
            distributorId: event.metadata.distributorId ?? '',
            createdAt: event.metadata.occurredAt,
            updatedAt: event.metadata.occurredAt,
          },
        });
      }
      const at = event.metadata.occurredAt;
      sources.push({
        id: event.metadata.eventId,
        version: event.position,
        doc: { id: event.metadata.eventId, eventIds, createdAt: at, updatedAt: at },
      });
    }
    if (records.length) await readStore.upsertMany(this.collections.records, records);
    if (sources.length) await readStore.upsertMany(this.collections.sources, sources);
    const writes = [...snapshots.entries()]
      .filter(([, s]) => s.changed)
      .map(([id, s]) => ({ id, doc: s.doc, version: s.version }));
    if (writes.length) await readStore.upsertMany(this.collections.snapshots, writes);
    for (const erasure of erasures) await this.redact(readStore, erasure);
  }

  /**
   * An erasure of a user's personal data reaches the Events already recorded about the user: each is
   * rewritten as the mapper redacts it, at the erasure's position (so a replay of an older event cannot
   * bring the data back, and a redelivered erasure changes nothing).
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
      const found = await readStore.find<EventRecord>(this.collections.records, {
        filter,
        sort,
        page,
        limit: REDACTION_PAGE,
      });
      await readStore.upsertMany(
        this.collections.records,
        found.items.map((record) => ({
          id: record.id,
          version: event.position,
          doc: { ...record, data: redact(record.data) },
        })),
      );
      if (!found.hasMore) return;
    }
  }
}

const REDACTION_PAGE = 100;

function withoutTenant(doc: ReadDocument): Record<string, unknown> {
  const { distributorId: _distributorId, ...rest } = doc;
  return rest;
}

/**
 * The Event records produced from domain events, in the order they were produced, or null for a domain
 * event the recorder has not reached yet (the caller waits and asks again).
 */
export async function findRecordedEvents(
  readStore: ReadStore,
  domainEventId: string,
): Promise<EventRecord[] | null> {
  const source = await readStore.get<EventSource>(EVENT_SOURCES, domainEventId);
  if (!source) return null;
  const records: EventRecord[] = [];
  for (const id of source.eventIds) {
    const record = await readStore.get<EventRecord>(EVENT_RECORDS, id);
    if (record) records.push(record);
  }
  return records;
}
