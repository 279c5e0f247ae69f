import { ProjectedEvent, Projection, ReadDocument, SqliteReadStore } from '@cip/shared/read-store';
import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyToProjection } from './apply-projection';

/** A projection that creates its document on `Opened`, moves `updatedAt` on `Renamed`, and ignores `Viewed`. */
const things: Projection = {
  name: 'things',
  collection: 'things',
  topics: ['thg'],
  evolve(doc, event) {
    const at = event.metadata.occurredAt;
    if (event.type === 'Opened') return { id: event.streamId, createdAt: at, updatedAt: at };
    if (event.type === 'Renamed' && doc) return { ...doc, updatedAt: at };
    return doc;
  },
};

const log: ProjectedEvent[] = [
  ['thg-a', 'Opened'],
  ['thg-b', 'Opened'],
  ['thg-a', 'Renamed'],
  ['thg-b', 'Viewed'],
  ['thg-a', 'Viewed'],
].map(([streamId, type], i) => ({
  streamId,
  type,
  revision: 0,
  position: 10 + i,
  data: {},
  metadata: { eventId: `e${i}`, occurredAt: `2026-01-01T00:00:00.00${i}Z` },
}));
for (const event of log) event.revision = log.filter((e) => e.streamId === event.streamId).indexOf(event);

describe('projection host: the log positions that order list ties', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-apply-'));
  let db: SqliteDatabase;
  let store: SqliteReadStore;
  beforeAll(() => {
    db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
    store = new SqliteReadStore(db);
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const positionsAfter = async (collection: string, batches: ProjectedEvent[][]) => {
    for (const batch of batches) await applyToProjection(things, store, batch, collection);
    const of = async (id: string) => (await store.getVersioned<ReadDocument>(collection, id))?.positions;
    return { a: await of('thg-a'), b: await of('thg-b') };
  };

  it('stores the positions of the events that set createdAt and updatedAt, however the log is batched', async () => {
    const expected = { a: { created: 10, updated: 12 }, b: { created: 11, updated: 11 } };
    expect(await positionsAfter('one_batch', [log])).toEqual(expected);
    expect(
      await positionsAfter(
        'event_by_event',
        log.map((event) => [event]),
      ),
    ).toEqual(expected);
    // A redelivered batch changes nothing.
    expect(await positionsAfter('event_by_event', [log])).toEqual(expected);
  });
});
