import { categoryOf } from '@cip/shared/eventing';
import { deterministicUuid } from '@cip/shared/runtime';
import type {
  ProjectedEvent,
  PublicEventMapper,
  ReadDocument,
  ReadStore,
  VersionedWrite,
} from '@cip/shared/read-store';
import { EVENT_RECORDS, EVENT_SNAPSHOTS, EventRecord } from './event-record';

/**
 * Turns domain events into public Event records (GET /v1/events; later, webhook deliveries). For each
 * event it advances the entity snapshot with the owning context's projection and asks the context's
 * mapper which public Events the occurrence produces. The Event id is derived from the domain event id
 * and the Event name, so a replay or a rebuild yields the same ids and never a duplicate.
 *
 * Records are written before snapshots: after a crash between the two, the replay recomputes the same
 * snapshot and the guarded record writes change nothing.
 */
export class PublicEventRecorder {
  private readonly mappers = new Map<string, PublicEventMapper>();

  constructor(
    mappers: PublicEventMapper[],
    private readonly collections = { records: EVENT_RECORDS, snapshots: EVENT_SNAPSHOTS },
  ) {
    for (const mapper of mappers) this.mappers.set(mapper.topic, mapper);
  }

  get topics(): string[] {
    return [...this.mappers.keys()];
  }

  async record(readStore: ReadStore, events: ProjectedEvent[]): Promise<void> {
    const snapshots = new Map<string, { doc: ReadDocument | null; version: number; changed: boolean }>();
    const records: VersionedWrite<EventRecord>[] = [];
    for (const event of events) {
      const mapper = this.mappers.get(categoryOf(event.streamId));
      if (!mapper) continue;
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
      for (const draft of mapper.toPublicEvents(event, snapshot.doc)) {
        const id = deterministicUuid(event.metadata.eventId, draft.eventName);
        records.push({
          id,
          version: event.position,
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
    }
    if (records.length) await readStore.upsertMany(this.collections.records, records);
    const writes = [...snapshots.entries()]
      .filter(([, s]) => s.changed)
      .map(([id, s]) => ({ id, doc: s.doc, version: s.version }));
    if (writes.length) await readStore.upsertMany(this.collections.snapshots, writes);
  }
}

function withoutTenant(doc: ReadDocument): Record<string, unknown> {
  const { distributorId: _distributorId, ...rest } = doc;
  return rest;
}
