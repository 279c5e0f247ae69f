import { randomUUID } from 'node:crypto';
import type { ReadDocument, ReadStore } from '../read-store.port';
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
    expect(await store.getVersioned(collection, 'thg-001')).toEqual({ doc: thing(1), version: 0 });
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
    expect(await store.getVersioned(collection, 'thg-001')).toEqual({ doc: null, version: 2 });
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
}
