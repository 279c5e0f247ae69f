import { categoryOf, EventStore } from '@cip/shared/eventing';
import type {
  ProjectedEvent,
  Projection,
  ReadDocument,
  ReadStore,
  VersionedWrite,
} from '@cip/shared/read-store';

/**
 * Applies a batch of events to a projection's documents: events are grouped by stream, each document is
 * read once with its version, events at or below that version are skipped (replays, redeliveries), and all
 * changed documents are written in one guarded bulk write. Each document carries the log positions of the
 * event that created it and of the last one applied, which order lists within one millisecond; so every
 * projection gets them without knowing.
 */
export async function applyToProjection(
  projection: Projection,
  readStore: ReadStore,
  events: ProjectedEvent[],
  collection = projection.collection,
): Promise<void> {
  const byStream = new Map<string, ProjectedEvent[]>();
  for (const event of events) {
    const list = byStream.get(event.streamId);
    if (list) list.push(event);
    else byStream.set(event.streamId, [event]);
  }
  const writes: VersionedWrite[] = [];
  for (const [streamId, streamEvents] of byStream) {
    const stored = await readStore.getVersioned(collection, streamId);
    let doc: ReadDocument | null = stored?.doc ?? null;
    let version = stored?.version ?? -1;
    let { created, updated } = stored?.positions ?? { created: 0, updated: 0 };
    let changed = false;
    for (const event of streamEvents) {
      if (event.revision <= version) continue;
      const next = projection.evolve(doc, event);
      // The positions of the events that set the sort fields, so the same fold gives the same order on a
      // rebuild, however the log is batched.
      if (next && next.createdAt !== doc?.createdAt) created = event.position;
      if (next && next.updatedAt !== doc?.updatedAt) updated = event.position;
      doc = next;
      version = event.revision;
      changed = true;
    }
    if (changed) writes.push({ id: streamId, doc, version, positions: { created, updated } });
  }
  if (writes.length) await readStore.upsertMany(collection, writes);
}

/**
 * Replays the whole log into `collection` (a projection's own collection for a rebuild, or a scratch one
 * to compare against the live documents). Returns the position it replayed up to.
 */
export async function replayProjection(
  projection: Projection,
  store: EventStore,
  readStore: ReadStore,
  collection = projection.collection,
): Promise<number> {
  const topics = new Set(projection.topics);
  let after = 0;
  for (;;) {
    const events = await store.readAll({ after, maxCount: 2000 });
    if (events.length === 0) return after;
    const relevant = events.filter((e) => topics.has(categoryOf(e.streamId)));
    await applyToProjection(projection, readStore, relevant, collection);
    after = events[events.length - 1].position;
  }
}
