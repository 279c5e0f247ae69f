import type { PublicEventName } from '@cip/shared/contracts';
import { ProjectedEvent, PublicEventMapper, ReadDocument, SqliteReadStore } from '@cip/shared/read-store';
import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_RECORDS, EventRecord, LEGACY_EVENT_SOURCES, renderEvent } from './event-record';
import { findRecordedEvents, PublicEventRecorder, StreamHistory } from './public-event-recorder';

const name = (n: string) => n as PublicEventName;

/** Things: `Opened` creates one, `Renamed` renames it, `Touched` counts touches (no Event), `Split` gives two. */
const things: PublicEventMapper = {
  topic: 'thg',
  snapshot: {
    name: 'things',
    collection: 'things',
    topics: ['thg'],
    evolve(doc, event): ReadDocument | null {
      const at = event.metadata.occurredAt;
      if (event.type === 'Opened')
        return {
          id: event.streamId,
          distributorId: 'dis-1',
          name: event.data.name,
          touches: 0,
          createdAt: at,
          updatedAt: at,
        };
      if (!doc) return doc;
      if (event.type === 'Renamed') return { ...doc, name: event.data.name, updatedAt: at };
      if (event.type === 'Touched') return { ...doc, touches: (doc.touches as number) + 1 };
      if (event.type === 'Erased') return { ...doc, name: null };
      return doc;
    },
  },
  toPublicEvents(event, snapshot) {
    const base = { eventTargetId: event.streamId, userId: 'usr-1' };
    if (event.type === 'Opened') return [{ ...base, eventName: name('thing.opened') }];
    if (event.type === 'Renamed')
      return [{ ...base, eventName: name('thing.renamed'), fields: { touched: snapshot?.touches } }];
    if (event.type === 'Split')
      return ['b', 'a', 'c'].map((part) => ({
        ...base,
        eventName: name('thing.split'),
        idKey: part,
        fields: { part },
      }));
    return [];
  },
  erasure: {
    userOf: (event) => (event.type === 'Erased' ? 'usr-1' : null),
    redact: (data) => ({ ...data, name: null }),
  },
};

/** Notes about a thing: `Noted` changes no thing, and is followed by `thing.state` with the thing as it stands. */
const notes: PublicEventMapper = {
  topic: 'nte',
  snapshot: { name: 'notes', collection: 'notes', topics: ['nte'], evolve: () => null },
  toPublicEvents(event) {
    const thing = event.data.thing as string;
    return [{ eventName: name('thing.state'), eventTargetId: thing, userId: 'usr-1', snapshotOf: thing }];
  },
};

/** The log, as the event store serves a stream's earlier events; counts the reads. */
class Log implements StreamHistory {
  readonly events: ProjectedEvent[] = [];
  reads = 0;

  append(streamId: string, type: string, data: Record<string, unknown> = {}): ProjectedEvent {
    const event: ProjectedEvent = {
      streamId,
      type,
      data,
      revision: this.events.filter((e) => e.streamId === streamId).length,
      position: this.events.length + 1,
      metadata: {
        eventId: `evt-${this.events.length + 1}`,
        occurredAt: '2026-01-01T00:00:00.000Z',
        distributorId: 'dis-1',
      },
    };
    this.events.push(event);
    return event;
  }

  async readStream(streamId: string, options: { fromRevision: number; maxCount: number }) {
    this.reads++;
    return this.events
      .filter((e) => e.streamId === streamId && e.revision >= options.fromRevision)
      .slice(0, options.maxCount);
  }
}

describe('public Event recorder: one document per Event', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-recorder-'));
  let db: SqliteDatabase;
  let store: SqliteReadStore;
  let log: Log;

  beforeEach(() => {
    db = openSqliteDatabase(join(dir, `${Date.now()}-${Math.random()}.sqlite`));
    store = new SqliteReadStore(db);
    log = new Log();
  });
  afterEach(() => db.close());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const documents = () =>
    db.prepare('SELECT collection, count(*) AS n FROM read_models GROUP BY collection').all() as {
      collection: string;
      n: number;
    }[];
  const eventsOf = (event: ProjectedEvent) =>
    findRecordedEvents(store, { ...event.metadata, position: event.position });

  it('writes only the Event documents, with the entity as it was after each occurrence, without reading the log', async () => {
    const recorder = new PublicEventRecorder([things]);
    const opened = log.append('thg-a', 'Opened', { name: 'first' });
    const touched = log.append('thg-a', 'Touched');
    const renamed = log.append('thg-a', 'Renamed', { name: 'second' });
    await recorder.record(store, [opened], log);
    await recorder.record(store, [touched, renamed], log);

    expect(documents()).toEqual([{ collection: EVENT_RECORDS, n: 2 }]);
    expect(log.reads).toBe(0);
    const [record] = await eventsOf(renamed);
    expect(renderEvent(record)).toEqual({
      id: record.id,
      eventId: record.id,
      eventName: 'thing.renamed',
      eventTargetId: 'thg-a',
      userId: 'usr-1',
      data: {
        id: 'thg-a',
        name: 'second',
        touches: 1,
        touched: 1,
        createdAt: opened.metadata.occurredAt,
        updatedAt: renamed.metadata.occurredAt,
      },
      createdAt: renamed.metadata.occurredAt,
      updatedAt: renamed.metadata.occurredAt,
    });
    expect(await eventsOf(touched)).toEqual([]);
  });

  it('after a restart, folds the entity from the log and records the same Events as without one', async () => {
    const opened = log.append('thg-a', 'Opened', { name: 'first' });
    const touched = log.append('thg-a', 'Touched');
    await new PublicEventRecorder([things]).record(store, [opened, touched], log);
    const renamed = log.append('thg-a', 'Renamed', { name: 'second' });

    await new PublicEventRecorder([things]).record(store, [renamed], log);
    const restarted = await store.all<EventRecord>(EVENT_RECORDS);

    await store.clear(EVENT_RECORDS);
    await new PublicEventRecorder([things]).record(store, log.events, log);
    expect(restarted).toEqual(await store.all<EventRecord>(EVENT_RECORDS));
    expect((await eventsOf(renamed))[0].data).toMatchObject({ name: 'second', touches: 1 });
  });

  it('a redelivered batch changes nothing', async () => {
    const recorder = new PublicEventRecorder([things]);
    const batch = [
      log.append('thg-a', 'Opened', { name: 'first' }),
      log.append('thg-a', 'Renamed', { name: 'x' }),
    ];
    await recorder.record(store, batch, log);
    const before = await store.all(EVENT_RECORDS);
    await recorder.record(store, batch, log);
    await new PublicEventRecorder([things]).record(store, batch, log);
    expect(await store.all(EVENT_RECORDS)).toEqual(before);
  });

  it('finds the Events of one domain event in the order they were produced, not those of its neighbours', async () => {
    const recorder = new PublicEventRecorder([things]);
    const events = [
      log.append('thg-a', 'Opened', { name: 'a' }),
      log.append('thg-a', 'Split'),
      log.append('thg-b', 'Opened', { name: 'b' }),
    ];
    await recorder.record(store, events, log);
    expect((await eventsOf(events[1])).map((r) => r.data.part)).toEqual(['b', 'a', 'c']);
    expect((await eventsOf(events[2])).map((r) => r.eventTargetId)).toEqual(['thg-b']);
  });

  it('an erasure redacts the recorded Events and the dispatcher still finds them', async () => {
    const recorder = new PublicEventRecorder([things]);
    const opened = log.append('thg-a', 'Opened', { name: 'secret' });
    await recorder.record(store, [opened], log);
    await recorder.record(store, [log.append('thg-a', 'Erased')], log);
    const [record] = await eventsOf(opened);
    expect(record.data.name).toBeNull();
  });

  it('records no Event of a domain event no distributor owns, and still folds it into the entity', async () => {
    const recorder = new PublicEventRecorder([things]);
    const opened = log.append('thg-a', 'Opened', { name: 'first' });
    const platformRename = { ...log.append('thg-a', 'Renamed', { name: 'platform' }) };
    platformRename.metadata = { ...platformRename.metadata, distributorId: undefined };
    log.events[log.events.length - 1] = platformRename;
    const touched = log.append('thg-a', 'Touched');
    const renamed = log.append('thg-a', 'Renamed', { name: 'second' });
    await recorder.record(store, [opened, platformRename, touched, renamed], log);
    expect((await store.all<EventRecord>(EVENT_RECORDS)).map((r) => r.eventName)).toEqual(
      expect.arrayContaining(['thing.opened', 'thing.renamed']),
    );
    expect(await store.all(EVENT_RECORDS)).toHaveLength(2);
    expect(
      await findRecordedEvents(store, { ...platformRename.metadata, position: platformRename.position }),
    ).toEqual([]);
    expect((await eventsOf(renamed))[0].data).toMatchObject({ name: 'second', touches: 1 });
  });

  it('lists the Events of one occurrence in the order its mapper gave them, after those of the one before', async () => {
    const recorder = new PublicEventRecorder([things]);
    const opened = log.append('thg-a', 'Opened', { name: 'first' });
    const splits = [1, 2, 3, 4].map(() => log.append('thg-a', 'Split'));
    const renamed = log.append('thg-a', 'Renamed', { name: 'second' });
    await recorder.record(store, [opened, ...splits, renamed], log);
    // All in one millisecond: the list order is the log's, and within one occurrence the mapper's.
    const listed = await store.find<EventRecord>(EVENT_RECORDS, {
      filter: { distributorId: 'dis-1' },
      sort: { field: 'createdAt', direction: 'asc' },
      page: 0,
      limit: 100,
    });
    expect(listed.items.map((r) => `${r.eventName}${r.data.part ? `:${r.data.part}` : ''}`)).toEqual([
      'thing.opened',
      ...splits.flatMap(() => ['thing.split:b', 'thing.split:a', 'thing.split:c']),
      'thing.renamed',
    ]);
    for (const split of splits)
      expect((await eventsOf(split)).map((r) => r.data.part)).toEqual(['b', 'a', 'c']);
  });

  it("gives an Event another entity's snapshot as it stood at the occurrence's log position (snapshotOf)", async () => {
    const opened = log.append('thg-a', 'Opened', { name: 'first' });
    const touched = log.append('thg-a', 'Touched');
    const noted = log.append('nte-1', 'Noted', { thing: 'thg-a' });
    const renamed = log.append('thg-a', 'Renamed', { name: 'second' });
    const statesOf = async () =>
      (await store.all<EventRecord>(EVENT_RECORDS))
        .filter((r) => r.eventName === name('thing.state'))
        .map((r) => ({ target: r.eventTargetId, name: r.data.name, touches: r.data.touches }));
    // In log order, the thing held in memory.
    await new PublicEventRecorder([things, notes]).record(store, [opened, touched, noted, renamed], log);
    expect(await statesOf()).toEqual([{ target: 'thg-a', name: 'first', touches: 1 }]);
    // Alone (a rebuild of the notes, a restart): the thing folded from its stream up to the note, not after.
    db.prepare('DELETE FROM read_models').run();
    await new PublicEventRecorder([things, notes]).record(store, [noted], log);
    expect(await statesOf()).toEqual([{ target: 'thg-a', name: 'first', touches: 1 }]);
    // The thing already recorded past the note (another topic read ahead): still as it was at the note.
    db.prepare('DELETE FROM read_models').run();
    const ahead = new PublicEventRecorder([things, notes]);
    await ahead.record(store, [opened, touched, renamed], log);
    await ahead.record(store, [noted], log);
    expect(await statesOf()).toEqual([{ target: 'thg-a', name: 'first', touches: 1 }]);
  });

  it('serves Events recorded in the old layout (no origin, an index document per domain event)', async () => {
    const at = '2025-06-01T00:00:00.000Z';
    const old: EventRecord = {
      id: 'e-old',
      eventId: 'e-old',
      eventName: name('thing.opened'),
      eventTargetId: 'thg-old',
      data: { name: 'old' },
      distributorId: 'dis-1',
      createdAt: at,
      updatedAt: at,
    };
    await store.upsertMany(EVENT_RECORDS, [
      { id: old.id, doc: old, version: 7, positions: { created: 7, updated: 7 } },
    ]);
    await store.upsertMany(LEGACY_EVENT_SOURCES, [
      { id: 'evt-old', version: 7, doc: { id: 'evt-old', eventIds: [old.id], createdAt: at, updatedAt: at } },
    ]);
    expect(
      await findRecordedEvents(store, {
        eventId: 'evt-old',
        position: 7,
        occurredAt: at,
        distributorId: 'dis-1',
      }),
    ).toEqual([old]);
    expect(renderEvent(old)).not.toHaveProperty('distributorId');
  });
});
