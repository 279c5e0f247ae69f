import {
  categoryOf,
  EmbeddedMessageBus,
  EventStore,
  MessageBus,
  ReadAllOptions,
  RecordedEvent,
} from '@cip/shared/eventing';
import type { Projection, ReadDocument, ReadStore } from '@cip/shared/read-store';
import { applyToProjection, replayProjection } from './apply-projection';

/**
 * A read model that can be rebuilt from the log: a projection, or any consumer that writes documents
 * (the public Event recorder). It only has to replay the whole log into collections whose names it is
 * given, so verification can rebuild it beside the live collections without touching them.
 */
export interface RebuildableReadModel {
  name: string;
  /** Consumer group that keeps the live collections current. */
  group: string;
  topics: string[];
  /** The live collections it writes. */
  collections: string[];
  /** Per live collection, the fields its documents are looked up by (`ReadStore.ensureIndexes`). */
  indexes?: Readonly<Record<string, readonly string[]>>;
  /**
   * Applies a batch of the log's events of `topics` to the live collections (the consumer group's work);
   * `eventStore` is the scope's log, for a model that folds a stream's earlier events it does not hold.
   */
  apply(readStore: ReadStore, events: RecordedEvent[], eventStore: EventStore): Promise<void>;
  /** Replays the whole log into `target(collection)` for each collection; returns the position reached. */
  replay(
    eventStore: EventStore,
    readStore: ReadStore,
    target: (collection: string) => string,
  ): Promise<number>;
}

/** The ports a rebuild or a verification works on: one scope's. */
export interface ReplayPorts {
  eventStore: EventStore;
  readStore: ReadStore;
  bus: MessageBus;
}

export interface CollectionDifferences {
  name: string;
  collection: string;
  /** Ids the log produces but the live collection lacks. */
  missing: string[];
  /** Ids in the live collection that the log does not produce. */
  extra: string[];
  /** Ids present in both whose documents differ. */
  different: string[];
  /** Documents the log produces. */
  total: number;
}

/** How far the replay of one read model has read the log (`projections rebuild|verify` show it). */
export interface ReplayProgress {
  name: string;
  /** Log position read up to. */
  position: number;
  /** The log's head when the replay started. */
  head: number;
  /** Events read so far (of every topic: the replay reads the whole log). */
  events: number;
}

export type ReplayProgressListener = (progress: ReplayProgress) => void;

export interface RebuildOutcome {
  name: string;
  collections: string[];
  /** Log position the collections were rebuilt up to; the consumer group resumes after it. */
  position: number;
}

const VERIFY_SUFFIX = '__verify';

export const projectionReadModel = (projection: Projection): RebuildableReadModel => ({
  name: projection.name,
  group: `projection.${projection.name}`,
  topics: projection.topics,
  collections: [projection.collection],
  ...(projection.indexes ? { indexes: { [projection.collection]: projection.indexes } } : {}),
  apply: (readStore, events) => applyToProjection(projection, readStore, events),
  replay: (eventStore, readStore, target) =>
    replayProjection(projection, eventStore, readStore, target(projection.collection)),
});

/**
 * Hands every event of `topics` to `handle` in log order, in batches, from position 0; returns the
 * position reached. For consumers that are not a single projection (the public Event recorder).
 */
export async function replayLog(
  eventStore: EventStore,
  topics: string[],
  handle: (events: RecordedEvent[]) => Promise<void>,
): Promise<number> {
  const wanted = new Set(topics);
  let after = 0;
  for (;;) {
    const events = await eventStore.readAll({ after, maxCount: 2000 });
    if (events.length === 0) return after;
    const relevant = events.filter((e) => wanted.has(categoryOf(e.streamId)));
    if (relevant.length) await handle(relevant);
    after = events[events.length - 1].position;
  }
}

/**
 * Replays each read model into scratch collections and compares them document by document with the live
 * ones. The live side is only exact when its consumers have caught up: documents written by a running
 * platform after the replay started show up as differences.
 */
export async function verifyProjections(
  ports: ReplayPorts,
  models: RebuildableReadModel[],
  onProgress?: ReplayProgressListener,
): Promise<CollectionDifferences[]> {
  const results: CollectionDifferences[] = [];
  for (const model of models) {
    const scratch = (collection: string) => `${collection}${VERIFY_SUFFIX}`;
    // Leftovers of an interrupted verification would hold versions that make the replay skip events.
    await clearAll(ports.readStore, model.collections.map(scratch));
    try {
      await model.replay(await observedLog(ports.eventStore, model, onProgress), ports.readStore, scratch);
      for (const collection of model.collections) {
        const expected = await ports.readStore.all(scratch(collection));
        const actual = await ports.readStore.all(collection);
        results.push({ name: model.name, collection, ...compareDocuments(expected, actual) });
      }
    } finally {
      await clearAll(ports.readStore, model.collections.map(scratch));
    }
  }
  return results;
}

/**
 * Clears each read model's live collections, replays the log into them and moves its consumer group to
 * the position replayed, so a consumer started afterwards carries on from there instead of re-applying
 * the log. Its consumers must not be running (the caller makes sure the platform is stopped).
 */
export async function rebuildProjections(
  ports: ReplayPorts,
  models: RebuildableReadModel[],
  onProgress?: ReplayProgressListener,
): Promise<RebuildOutcome[]> {
  const outcomes: RebuildOutcome[] = [];
  for (const model of models) {
    await clearAll(ports.readStore, model.collections);
    const position = await model.replay(
      await observedLog(ports.eventStore, model, onProgress),
      ports.readStore,
      (collection) => collection,
    );
    await moveGroupTo(ports.bus, model, position);
    outcomes.push({ name: model.name, collections: model.collections, position });
  }
  return outcomes;
}

/**
 * The event store as `model`'s replay sees it, reporting each page of the log it reads. Every replay reads
 * the log through `readAll`, so observing that call reports the progress of any read model without each
 * one threading a callback through its replay.
 */
async function observedLog(
  store: EventStore,
  model: RebuildableReadModel,
  onProgress: ReplayProgressListener | undefined,
): Promise<EventStore> {
  if (!onProgress) return store;
  const head = await store.headPosition();
  let events = 0;
  return new Proxy(store, {
    get(target, property) {
      if (property === 'readAll') {
        return async (options?: ReadAllOptions) => {
          const page = await target.readAll(options);
          events += page.length;
          if (page.length) {
            onProgress({ name: model.name, position: page[page.length - 1].position, head, events });
          }
          return page;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function moveGroupTo(bus: MessageBus, model: RebuildableReadModel, position: number): Promise<void> {
  if (bus instanceof EmbeddedMessageBus) {
    // resetGroup first: it refuses when a consumer of the group runs in this process.
    await bus.resetGroup(model.group);
    bus.commitOffset(model.group, position);
    return;
  }
  // The port can only rewind. Re-applying the log onto rebuilt documents is then a slow no-op: every
  // document already carries the version of the last event applied.
  await bus.resetGroup(model.group, model.topics);
}

async function clearAll(readStore: ReadStore, collections: string[]): Promise<void> {
  for (const collection of collections) await readStore.clear(collection);
}

function compareDocuments(
  expected: ReadDocument[],
  actual: ReadDocument[],
): Omit<CollectionDifferences, 'name' | 'collection'> {
  const live = new Map(actual.map((doc) => [doc.id, doc]));
  const missing: string[] = [];
  const different: string[] = [];
  for (const doc of expected) {
    const other = live.get(doc.id);
    if (!other) missing.push(doc.id);
    else if (canonicalJson(doc) !== canonicalJson(other)) different.push(doc.id);
    live.delete(doc.id);
  }
  return { missing, extra: [...live.keys()], different, total: expected.length };
}

/** JSON with object keys sorted, so documents that differ only in key order compare equal. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
