import { randomUUID } from 'node:crypto';
import type { FindQuery, ReadDocument, ReadStore, SortKey } from '../read-store.port';
import { forTenant } from '../tenant-read-store';

/** The read-model store contract, run against SQLite and MongoDB. Collections are unique per test. */
export interface ReadStoreContractTarget {
  open(): Promise<ReadStore>;
  cleanup(): Promise<void>;
}

interface Thing extends ReadDocument {
  distributorId: string;
  status: string;
  vip: boolean;
  nickname: string | null;
  n: number;
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

const thing = (n: number, overrides: Partial<Thing> = {}): Thing => ({
  id: `thg-${String(n).padStart(3, '0')}`,
  distributorId: 'dst-a',
  status: n % 2 ? 'active' : 'frozen',
  vip: n % 3 === 0,
  nickname: n % 4 === 0 ? null : `n${n}`,
  n,
  createdAt: at(n),
  updatedAt: at(100 - n),
  ...overrides,
});

export function readStoreContract(target: ReadStoreContractTarget): void {
  let store: ReadStore;
  let collection: string;

  beforeAll(async () => {
    store = await target.open();
  });
  beforeEach(() => {
    collection = `things_${randomUUID().replace(/-/g, '')}`;
  });
  afterAll(async () => {
    await store.close();
    await target.cleanup();
  });

  it('stores, reads and versions a document', async () => {
    expect(await store.get(collection, 'thg-001')).toBeNull();
    expect(await store.upsertMany(collection, [{ id: 'thg-001', doc: thing(1), version: 0 }])).toBe(1);
    expect(await store.get(collection, 'thg-001')).toEqual(thing(1));
    expect(await store.getVersioned(collection, 'thg-001')).toEqual({
      doc: thing(1),
      version: 0,
      positions: { created: 0, updated: 0 },
    });
    await store.upsertMany(collection, [
      { id: 'thg-001', doc: thing(1), version: 1, positions: { created: 7, updated: 9 } },
    ]);
    expect((await store.getVersioned(collection, 'thg-001'))?.positions).toEqual({ created: 7, updated: 9 });
  });

  it('ignores a write whose version is not above the stored one (replays, redeliveries)', async () => {
    await store.upsertMany(collection, [{ id: 'thg-001', doc: thing(1, { status: 'v5' }), version: 5 }]);
    expect(
      await store.upsertMany(collection, [
        { id: 'thg-001', doc: thing(1, { status: 'v3' }), version: 3 },
        { id: 'thg-001', doc: thing(1, { status: 'v5-again' }), version: 5 },
      ]),
    ).toBe(0);
    expect((await store.get<Thing>(collection, 'thg-001'))?.status).toBe('v5');
    expect(
      await store.upsertMany(collection, [{ id: 'thg-001', doc: thing(1, { status: 'v6' }), version: 6 }]),
    ).toBe(1);
    expect((await store.get<Thing>(collection, 'thg-001'))?.status).toBe('v6');
  });

  it('deletes with a tombstone that keeps later-arriving old events out', async () => {
    await store.upsertMany(collection, [{ id: 'thg-001', doc: thing(1), version: 1 }]);
    await store.upsertMany(collection, [{ id: 'thg-001', doc: null, version: 2 }]);
    expect(await store.get(collection, 'thg-001')).toBeNull();
    expect(await store.getVersioned(collection, 'thg-001')).toMatchObject({ doc: null, version: 2 });
    await store.upsertMany(collection, [{ id: 'thg-001', doc: thing(1), version: 1 }]);
    expect(await store.get(collection, 'thg-001')).toBeNull();
    expect(
      (
        await store.find(collection, {
          filter: {},
          sort: { field: 'createdAt', direction: 'asc' },
          page: 0,
          limit: 10,
        })
      ).items,
    ).toEqual([]);
  });

  it('finds with equality filters (strings, booleans, null), sorted and paged', async () => {
    await store.upsertMany(
      collection,
      Array.from({ length: 12 }, (_, i) => ({ id: thing(i + 1).id, doc: thing(i + 1), version: 0 })),
    );
    await store.upsertMany(collection, [
      { id: 'thg-900', doc: thing(900, { distributorId: 'dst-b' }), version: 0 },
    ]);

    const active = await store.find<Thing>(collection, {
      filter: { distributorId: 'dst-a', status: 'active' },
      sort: { field: 'createdAt', direction: 'asc' },
      page: 0,
      limit: 100,
    });
    expect(active.items.map((t) => t.n)).toEqual([1, 3, 5, 7, 9, 11]);
    expect(active.hasMore).toBe(false);

    const vip = await store.find<Thing>(collection, {
      filter: { distributorId: 'dst-a', vip: true },
      sort: { field: 'createdAt', direction: 'desc' },
      page: 0,
      limit: 100,
    });
    expect(vip.items.map((t) => t.n)).toEqual([12, 9, 6, 3]);

    const noNickname = await store.find<Thing>(collection, {
      filter: { distributorId: 'dst-a', nickname: null },
      sort: { field: 'createdAt', direction: 'asc' },
      page: 0,
      limit: 100,
    });
    expect(noNickname.items.map((t) => t.n)).toEqual([4, 8, 12]);

    const page1 = await store.find<Thing>(collection, {
      filter: { distributorId: 'dst-a' },
      sort: { field: 'createdAt', direction: 'desc' },
      page: 1,
      limit: 5,
    });
    expect(page1.items.map((t) => t.n)).toEqual([7, 6, 5, 4, 3]);
    expect(page1.hasMore).toBe(true);
    const page2 = await store.find<Thing>(collection, {
      filter: { distributorId: 'dst-a' },
      sort: { field: 'createdAt', direction: 'desc' },
      page: 2,
      limit: 5,
    });
    expect(page2.items.map((t) => t.n)).toEqual([2, 1]);
    expect(page2.hasMore).toBe(false);

    const byUpdate = await store.find<Thing>(collection, {
      filter: { distributorId: 'dst-a' },
      sort: { field: 'updatedAt', direction: 'asc' },
      page: 0,
      limit: 3,
    });
    expect(byUpdate.items.map((t) => t.n)).toEqual([12, 11, 10]);

    const otherTenant = await store.find<Thing>(collection, {
      filter: { distributorId: 'dst-b' },
      sort: { field: 'createdAt', direction: 'asc' },
      page: 0,
      limit: 10,
    });
    expect(otherTenant.items.map((t) => t.n)).toEqual([900]);
  });

  it("shows a tenant its own documents only: another distributor's are invisible, as if missing", async () => {
    await store.upsertMany(collection, [
      { id: 'thg-001', doc: thing(1), version: 0 },
      { id: 'thg-002', doc: thing(2), version: 0 },
      { id: 'thg-900', doc: thing(900, { distributorId: 'dst-b', status: 'active' }), version: 0 },
    ]);
    const page = { sort: { field: 'createdAt' as const, direction: 'asc' as const }, page: 0, limit: 10 };
    const tenantA = forTenant(store, { distributorId: 'dst-a', environment: 'sandbox' });
    const tenantB = forTenant(() => store, { distributorId: 'dst-b', environment: 'sandbox' });

    expect((await tenantA.find<Thing>(collection, {}, page)).items.map((t) => t.id)).toEqual([
      'thg-001',
      'thg-002',
    ]);
    // A filter on the distributor cannot widen the view to another tenant.
    const widened = await tenantA.find<Thing>(collection, { distributorId: 'dst-b', status: 'active' }, page);
    expect(widened.items.map((t) => t.id)).toEqual(['thg-001']);
    expect(
      (await tenantB.find<Thing>(collection, { status: undefined }, page)).items.map((t) => t.id),
    ).toEqual(['thg-900']);

    expect(await tenantA.get(collection, 'thg-900')).toBeNull();
    expect((await tenantB.get<Thing>(collection, 'thg-900'))?.n).toBe(900);
    await expect(tenantA.getOwned(collection, 'thg-900', 'Thing')).rejects.toMatchObject({
      code: 'not_found',
      message: 'Thing thg-900 was not found',
    });
    await expect(tenantA.getOwned(collection, 'thg-404', 'Thing')).rejects.toMatchObject({
      code: 'not_found',
    });
    expect((await tenantA.getOwned<Thing>(collection, 'thg-002', 'Thing')).n).toBe(2);
  });

  it('looks documents up by an indexed field with the same answers as without the index', async () => {
    const docs = Array.from({ length: 30 }, (_, i) =>
      thing(i + 1, { cardId: `card-${i % 3}`, distributorId: i % 2 ? 'dst-a' : 'dst-b' } as Partial<Thing>),
    );
    await store.upsertMany(
      collection,
      docs.map((doc, i) => ({ id: doc.id, doc, version: 0, positions: { created: i + 1, updated: i + 1 } })),
    );
    const reads = async () => {
      const query = (overrides: Partial<FindQuery>): FindQuery => ({
        filter: { cardId: 'card-1' },
        sort: { field: 'createdAt', direction: 'asc' },
        page: 0,
        limit: 4,
        ...overrides,
      });
      const ids = async (q: FindQuery) => {
        const { items, hasMore } = await store.find<Thing>(collection, q);
        return { ids: items.map((t) => t.id), hasMore };
      };
      const first = await store.find<Thing>(collection, query({}));
      const last = first.items[first.items.length - 1];
      return [
        await ids(query({})),
        await ids(query({ page: 1 })),
        await ids(query({ sort: { field: 'createdAt', direction: 'desc' } })),
        await ids(query({ sort: { field: 'updatedAt', direction: 'asc' } })),
        await ids(query({ filter: { cardId: 'card-1', distributorId: 'dst-a' } })),
        await ids(query({ filter: { cardId: 'card-1', status: 'active', vip: false } })),
        await ids(
          query({ cursor: { side: 'after', key: { value: last.createdAt, position: 0, id: last.id } } }),
        ),
        await ids(query({ filter: { cardId: 'card-9' } })),
      ];
    };
    const withoutIndex = await reads();
    expect(withoutIndex[0]).toEqual({ ids: ['thg-002', 'thg-005', 'thg-008', 'thg-011'], hasMore: true });
    await store.ensureIndexes(collection, ['cardId', 'status']);
    await store.ensureIndexes(collection, ['cardId']);
    expect(await reads()).toEqual(withoutIndex);
  });

  it('reads what has expired by a time, earliest deadline first, in pages that resume after a key', async () => {
    // Deadlines out of creation order (programs with different windows); some without one; one deleted.
    const deadline = (n: number, expiresAt: string | null) => thing(n, { expiresAt } as Partial<Thing>);
    await store.upsertMany(collection, [
      { id: 'thg-001', doc: deadline(1, at(30)), version: 0 },
      { id: 'thg-002', doc: deadline(2, at(10)), version: 0 },
      { id: 'thg-003', doc: deadline(3, null), version: 0 },
      { id: 'thg-004', doc: thing(4), version: 0 },
      { id: 'thg-005', doc: deadline(5, at(20)), version: 0 },
      { id: 'thg-006', doc: deadline(6, at(20)), version: 0 },
      { id: 'thg-007', doc: deadline(7, at(40)), version: 0 },
      { id: 'thg-008', doc: deadline(8, at(15)), version: 0 },
      { id: 'thg-008', doc: null, version: 1 },
    ]);
    await store.upsertMany(`${collection}_other`, [{ id: 'thg-009', doc: deadline(9, at(1)), version: 0 }]);
    const ids = (docs: ReadDocument[]) => docs.map((d) => d.id);

    expect(ids(await store.expiredBy(collection, at(30), { limit: 10 }))).toEqual([
      'thg-002',
      'thg-005',
      'thg-006',
      'thg-001',
    ]);
    expect(await store.expiredBy(collection, at(9), { limit: 10 })).toEqual([]);
    const first = await store.expiredBy(collection, at(59), { limit: 2 });
    expect(ids(first)).toEqual(['thg-002', 'thg-005']);
    const last = first[first.length - 1];
    expect(ids(await store.expiredBy(collection, at(59), { after: last, limit: 2 }))).toEqual([
      'thg-006',
      'thg-001',
    ]);
    // A deadline moved later, then dropped: the document leaves the earlier reads.
    await store.upsertMany(collection, [{ id: 'thg-002', doc: deadline(2, at(50)), version: 1 }]);
    expect(ids(await store.expiredBy(collection, at(30), { limit: 10 }))).toEqual([
      'thg-005',
      'thg-006',
      'thg-001',
    ]);
    await store.upsertMany(collection, [{ id: 'thg-005', doc: deadline(5, null), version: 1 }]);
    expect(ids(await store.expiredBy(collection, at(30), { limit: 10 }))).toEqual(['thg-006', 'thg-001']);
  });

  it('keeps collections apart and clears one without touching another', async () => {
    const other = `${collection}_other`;
    await store.upsertMany(collection, [{ id: 'thg-001', doc: thing(1), version: 0 }]);
    await store.upsertMany(other, [{ id: 'thg-001', doc: thing(1, { status: 'elsewhere' }), version: 0 }]);
    await store.clear(collection);
    expect(await store.get(collection, 'thg-001')).toBeNull();
    expect((await store.get<Thing>(other, 'thg-001'))?.status).toBe('elsewhere');
    expect((await store.all<Thing>(other)).map((t) => t.id)).toEqual(['thg-001']);
    await store.upsertMany(collection, [{ id: 'thg-001', doc: thing(1), version: 0 }]);
    expect(await store.get(collection, 'thg-001')).toEqual(thing(1));
  });

  describe('keyset pagination and ties within one millisecond', () => {
    const MS = '2026-01-01T00:00:00.000Z';
    // Ids deliberately out of log order, so an order by id alone would differ from the log's.
    const idAt = (position: number) => `thg-${String((position * 37) % 101).padStart(3, '0')}`;
    const tied = (position: number, distributorId = 'dst-a'): Thing => ({
      ...thing(position, { distributorId }),
      id: idAt(position),
      createdAt: MS,
      updatedAt: MS,
    });
    const insert = (positions: number[], distributorId = 'dst-a') =>
      store.upsertMany(
        collection,
        positions.map((position) => ({
          id: idAt(position),
          doc: tied(position, distributorId),
          // A stream revision, as projections write: the same for every document, so it cannot order them.
          version: 1,
          positions: { created: position, updated: position },
        })),
      );
    const keyOf = (position: number): SortKey => ({ value: MS, position, id: idAt(position) });
    const query = (direction: 'asc' | 'desc', extra: Partial<FindQuery> = {}): FindQuery => ({
      filter: { distributorId: 'dst-a' },
      sort: { field: 'createdAt', direction },
      page: 0,
      limit: 4,
      ...extra,
    });
    const ns = (items: Thing[]) => items.map((t) => t.n);

    it('orders documents of one millisecond by log position, pages by index included', async () => {
      await insert([5, 1, 9, 3, 7, 2, 8, 4, 6, 10]);
      const all = await store.find<Thing>(collection, query('asc', { limit: 100 }));
      expect(ns(all.items)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const pages = [];
      for (let page = 0; page < 3; page++)
        pages.push(ns((await store.find<Thing>(collection, query('desc', { page }))).items));
      expect(pages).toEqual([
        [10, 9, 8, 7],
        [6, 5, 4, 3],
        [2, 1],
      ]);
    });

    it('falls back to the id for documents of one millisecond and one position', async () => {
      await store.upsertMany(
        collection,
        ['thg-c', 'thg-a', 'thg-b'].map((id) => ({ id, doc: { ...tied(1), id }, version: 1 })),
      );
      const asc = await store.find<Thing>(collection, query('asc'));
      expect(asc.items.map((t) => t.id)).toEqual(['thg-a', 'thg-b', 'thg-c']);
      const after = await store.find<Thing>(
        collection,
        query('desc', { cursor: { side: 'after', key: { value: MS, position: 0, id: 'thg-c' } } }),
      );
      expect(after.items.map((t) => t.id)).toEqual(['thg-b', 'thg-a']);
    });

    it('reads the page after a key and the page before it, in the requested order, with hasMore', async () => {
      await insert([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const after = (direction: 'asc' | 'desc', position: number) =>
        store.find<Thing>(collection, query(direction, { cursor: { side: 'after', key: keyOf(position) } }));
      const before = (direction: 'asc' | 'desc', position: number) =>
        store.find<Thing>(collection, query(direction, { cursor: { side: 'before', key: keyOf(position) } }));

      expect(await after('desc', 9)).toEqual({ items: [8, 7, 6, 5].map((n) => tied(n)), hasMore: true });
      expect(await after('desc', 5)).toEqual({ items: [4, 3, 2, 1].map((n) => tied(n)), hasMore: false });
      expect(await after('desc', 1)).toEqual({ items: [], hasMore: false });
      expect(await after('asc', 2)).toEqual({ items: [3, 4, 5, 6].map((n) => tied(n)), hasMore: true });
      expect(await after('asc', 7)).toEqual({ items: [8, 9, 10].map((n) => tied(n)), hasMore: false });

      expect(await before('desc', 2)).toEqual({ items: [6, 5, 4, 3].map((n) => tied(n)), hasMore: true });
      expect(await before('desc', 6)).toEqual({ items: [10, 9, 8, 7].map((n) => tied(n)), hasMore: false });
      expect(await before('asc', 9)).toEqual({ items: [5, 6, 7, 8].map((n) => tied(n)), hasMore: true });
      expect(await before('asc', 4)).toEqual({ items: [1, 2, 3].map((n) => tied(n)), hasMore: false });
      expect(await before('asc', 1)).toEqual({ items: [], hasMore: false });
    });

    it('orders across milliseconds by time first, then by position (keys from documents of several ms)', async () => {
      const later = '2026-01-01T00:00:00.001Z';
      await insert([1, 2, 3]);
      // Position 0 is below every tied position, yet its later millisecond puts it first in `desc`.
      await store.upsertMany(collection, [
        { id: 'thg-late', doc: { ...tied(0), id: 'thg-late', createdAt: later }, version: 0 },
      ]);
      const first = await store.find<Thing>(collection, query('desc', { limit: 2 }));
      expect(first.items.map((t) => t.id)).toEqual(['thg-late', idAt(3)]);
      const next = await store.find<Thing>(
        collection,
        query('desc', { limit: 2, cursor: { side: 'after', key: keyOf(3) } }),
      );
      expect(ns(next.items)).toEqual([2, 1]);
      const back = await store.find<Thing>(
        collection,
        query('desc', { limit: 2, cursor: { side: 'before', key: keyOf(3) } }),
      );
      expect(back.items.map((t) => t.id)).toEqual(['thg-late']);
    });

    it('sorts by updatedAt with the position of the last applied event', async () => {
      await store.upsertMany(
        collection,
        [3, 1, 2].map((n, i) => ({
          id: idAt(n),
          doc: tied(n),
          version: 1,
          positions: { created: n, updated: 10 + i },
        })),
      );
      const byUpdate = await store.find<Thing>(collection, {
        ...query('asc'),
        sort: { field: 'updatedAt', direction: 'asc' },
      });
      expect(ns(byUpdate.items)).toEqual([3, 1, 2]);
      const afterFirst = await store.find<Thing>(collection, {
        ...query('asc'),
        sort: { field: 'updatedAt', direction: 'asc' },
        cursor: { side: 'after', key: { value: MS, position: 10, id: idAt(3) } },
      });
      expect(ns(afterFirst.items)).toEqual([1, 2]);
    });

    it('never repeats or skips a document when new ones arrive between page reads, both ways', async () => {
      const initial = Array.from({ length: 30 }, (_, i) => i + 1);
      let next = 31;
      const arrive = async () => insert([next++, next++]);
      await insert(initial);
      for (const side of ['after', 'before'] as const) {
        // Newest first: new documents land before the start, so a forward walk must not see them twice
        // or shift the rest; walking back from the oldest, the newcomers come after the end.
        const seen: number[] = [];
        let page = await store.find<Thing>(
          collection,
          side === 'after' ? query('desc') : query('desc', { cursor: { side, key: keyOf(0) } }),
        );
        for (let reads = 0; ; reads++) {
          if (reads > 40) throw new Error('the walk did not reach the end of the list in 40 pages');
          seen.push(...ns(page.items));
          if (!page.hasMore) break;
          await arrive();
          const edge = side === 'after' ? page.items[page.items.length - 1] : page.items[0];
          page = await store.find<Thing>(
            collection,
            query('desc', { cursor: { side, key: { value: MS, position: edge.n, id: edge.id } } }),
          );
        }
        const walked = seen.filter((n) => n <= 30);
        expect(new Set(walked).size).toBe(walked.length);
        expect([...walked].sort((a, b) => a - b)).toEqual(initial);
      }
    });

    it('pages through a tenant with a cursor that is one of its items, and refuses any other id', async () => {
      await insert([1, 2, 3, 4]);
      await insert([50], 'dst-b');
      await store.upsertMany(collection, [
        { id: idAt(3), doc: null, version: 99, positions: { created: 3, updated: 99 } },
      ]);
      const tenantA = forTenant(store, { distributorId: 'dst-a', environment: 'sandbox' });
      const sort = { field: 'createdAt' as const, direction: 'desc' as const };
      // The anchor need not match the filter: a cursor stays valid when its item changes status.
      const frozenAfterActive = await tenantA.find<Thing>(
        collection,
        { status: 'frozen' },
        { sort, page: 0, limit: 10, cursor: { startingAfter: idAt(1) } },
      );
      expect(ns(frozenAfterActive.items)).toEqual([]);
      const beforeOne = await tenantA.find<Thing>(
        collection,
        { status: 'frozen' },
        { sort, page: 0, limit: 10, cursor: { endingBefore: idAt(1) } },
      );
      expect(ns(beforeOne.items)).toEqual([4, 2]);

      for (const [cursor, field] of [
        [{ startingAfter: 'thg-404' }, 'startingAfter'],
        [{ endingBefore: idAt(50) }, 'endingBefore'],
        [{ startingAfter: idAt(3) }, 'startingAfter'],
      ] as const) {
        await expect(
          tenantA.find(collection, {}, { sort, page: 0, limit: 10, cursor }),
        ).rejects.toMatchObject({
          code: 'validation_error',
          details: [expect.objectContaining({ field })],
        });
      }
    });
  });
}
