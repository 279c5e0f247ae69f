import type { CardVaultStore, SealedCard } from '../card-vault-store.port';

let counter = 0;
const card = (overrides: Partial<SealedCard> = {}): SealedCard => {
  counter++;
  return {
    vaultRef: `vlt-contract-${counter}`,
    panHash: `hash-${counter}`,
    kekId: 'kek-1',
    wrappedKey: `v1.wrapped-${counter}`,
    sealedPan: `v1.pan-${counter}`,
    sealedPvv: null,
    expMonth: 11,
    expYear: 2029,
    createdAt: '2026-11-23T10:00:00.000Z',
    ...overrides,
  };
};

/**
 * What every card vault store adapter must do (`CardVaultStore`). `open` opens the store on the same
 * storage each time it is called (the same file, the same database), so reopening shows durability.
 */
export function cardVaultStoreContract(target: {
  open: () => Promise<CardVaultStore>;
  cleanup: () => Promise<void>;
}): void {
  let store: CardVaultStore;
  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store.close();
    await target.cleanup();
  });

  it('gives back a stored card as it was put, after the store is reopened', async () => {
    const stored = card({ sealedPvv: 'v1.pvv' });
    expect(await store.put(stored)).toBe('stored');
    await store.close();
    store = await target.open();
    expect(await store.get(stored.vaultRef)).toEqual(stored);
    expect(await store.get('vlt-never-stored')).toBeNull();
  });

  it('refuses a second card with the PAN hash of a stored one and keeps the first', async () => {
    const first = card();
    await store.put(first);
    const second = card({ panHash: first.panHash });
    expect(await store.put(second)).toBe('duplicate_pan');
    expect(await store.get(second.vaultRef)).toBeNull();
    expect(await store.get(first.vaultRef)).toEqual(first);
  });

  it('stores exactly one of many concurrent cards with one PAN hash', async () => {
    const cards = Array.from({ length: 20 }, () => card({ panHash: 'hash-contended' }));
    const outcomes = await Promise.all(cards.map((c) => store.put(c)));
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(1);
  });

  it("replaces a card's PVV, and says so when there is no such card", async () => {
    const stored = card();
    await store.put(stored);
    expect(await store.setPvv(stored.vaultRef, 'v1.new-pvv')).toBe(true);
    expect((await store.get(stored.vaultRef))?.sealedPvv).toBe('v1.new-pvv');
    expect(await store.setPvv('vlt-never-stored', 'v1.pvv')).toBe(false);
  });

  it('lists the cards of other KEKs in pages and re-wraps only a card still under the expected KEK', async () => {
    const underOld = [card({ kekId: 'kek-old' }), card({ kekId: 'kek-old' }), card({ kekId: 'kek-old' })];
    for (const c of underOld) await store.put(c);
    expect(await store.listWrappedUnderOtherKeks('kek-new', 2)).toHaveLength(2);

    const [target1] = underOld;
    expect(await store.rewrap(target1.vaultRef, 'kek-elsewhere', 'kek-new', 'v1.stale')).toBe(false);
    expect(await store.get(target1.vaultRef)).toEqual(target1);
    expect(await store.rewrap(target1.vaultRef, 'kek-old', 'kek-new', 'v1.rewrapped')).toBe(true);
    expect(await store.get(target1.vaultRef)).toMatchObject({ kekId: 'kek-new', wrappedKey: 'v1.rewrapped' });

    for (const c of await store.listWrappedUnderOtherKeks('kek-new', 1000)) {
      await store.rewrap(c.vaultRef, c.kekId, 'kek-new', 'v1.rewrapped');
    }
    expect(await store.listWrappedUnderOtherKeks('kek-new', 1000)).toEqual([]);
  });
}
