import type { CardVaultStore, RevealLink, SealedCard } from '../card-vault-store.port';

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
    await store.activateKek('kek-1');
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

  it('keeps the card stored under a vault reference when another is put under it, alone or concurrently', async () => {
    const first = card();
    expect(await store.put(first)).toBe('stored');
    expect(await store.put(card({ vaultRef: first.vaultRef }))).toBe('existing_ref');
    const racing = Array.from({ length: 10 }, () => card({ vaultRef: 'vlt-contract-raced' }));
    const outcomes = await Promise.all(racing.map((c) => store.put(c)));
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'existing_ref')).toHaveLength(9);
    const kept = racing[outcomes.indexOf('stored')];
    expect(await store.get(first.vaultRef)).toEqual(first);
    expect(await store.get('vlt-contract-raced')).toEqual(kept);
  });

  it('stores exactly one of many concurrent cards with one PAN hash', async () => {
    const cards = Array.from({ length: 20 }, () => card({ panHash: 'hash-contended' }));
    const outcomes = await Promise.all(cards.map((c) => store.put(c)));
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(1);
  });

  it('finds a stored card by its PAN hash, and nothing for a hash it does not hold', async () => {
    const stored = card();
    await store.put(stored);
    expect(await store.findByPanHash(stored.panHash)).toEqual(stored);
    expect(await store.findByPanHash('hash-never-stored')).toBeNull();
  });

  it("replaces a card's PVV, and says so when there is no such card", async () => {
    const stored = card();
    await store.put(stored);
    expect(await store.setPvv(stored.vaultRef, 'v1.new-pvv')).toBe(true);
    expect((await store.get(stored.vaultRef))?.sealedPvv).toBe('v1.new-pvv');
    expect(await store.setPvv('vlt-never-stored', 'v1.pvv')).toBe(false);
  });

  it('refuses a card wrapped by a KEK that is not the active one, storing nothing', async () => {
    const stale = card({ kekId: 'kek-never-active' });
    expect(await store.put(stale)).toBe('stale_kek');
    expect(await store.get(stale.vaultRef)).toBeNull();
  });

  it('switches the active KEK, re-wraps in batches, and forgets a retiring KEK only once nothing uses it', async () => {
    await store.activateKek('kek-old');
    const underOld = [card({ kekId: 'kek-old' }), card({ kekId: 'kek-old' }), card({ kekId: 'kek-old' })];
    for (const c of underOld) expect(await store.put(c)).toBe('stored');

    let locked: string[] = [];
    await store.activateKek('kek-new', () => (locked = ['ran']));
    expect(locked).toEqual(['ran']);
    expect(await store.activeKekId()).toBe('kek-new');
    expect(await store.put(card({ kekId: 'kek-old' }))).toBe('stale_kek');
    const registered = await store.registeredKeks();
    expect(registered).toEqual(
      expect.arrayContaining([
        { kekId: 'kek-new', status: 'active', cards: 0 },
        { kekId: 'kek-old', status: 'retiring', cards: 3 },
      ]),
    );
    const toRewrap = registered.reduce((sum, kek) => sum + kek.cards, 0);

    // Still referenced: kept, and the callback sees it among the registered KEKs.
    expect(await store.retireUnreferencedKeks((ids) => (locked = ids))).toEqual({ retired: [] });
    expect(locked).toEqual(expect.arrayContaining(['kek-new', 'kek-old']));

    const seen: string[] = [];
    const rewrap = (c: SealedCard) => {
      seen.push(c.kekId);
      return `v1.rewrapped-${c.vaultRef}`;
    };
    expect(await store.rewrapBatch('kek-new', 2, rewrap)).toBe(Math.min(2, toRewrap));
    let total = Math.min(2, toRewrap);
    for (let count; (count = await store.rewrapBatch('kek-new', 2, rewrap)) > 0;) total += count;
    expect(total).toBe(toRewrap);
    expect(seen).not.toContain('kek-new');
    expect(await store.get(underOld[0].vaultRef)).toMatchObject({
      kekId: 'kek-new',
      wrappedKey: `v1.rewrapped-${underOld[0].vaultRef}`,
    });

    const { retired } = await store.retireUnreferencedKeks((ids) => (locked = ids));
    expect(retired).toEqual(expect.arrayContaining(['kek-old', 'kek-1']));
    expect(locked).toEqual(['kek-new']);
    expect(await store.registeredKeks()).toEqual([{ kekId: 'kek-new', status: 'active', cards: toRewrap }]);
  });

  it('leaves the KEKs as they were when the write lock holder fails', async () => {
    const before = await store.registeredKeks();
    await expect(
      store.activateKek('kek-failed', () => {
        throw new Error('the key could not be written');
      }),
    ).rejects.toThrow('the key could not be written');
    expect(await store.registeredKeks()).toEqual(before);
  });

  describe('reveal links', () => {
    const link = (overrides: Partial<RevealLink> = {}): RevealLink => {
      counter++;
      return {
        tokenHash: `token-hash-${counter}`,
        vaultRef: `vlt-contract-${counter}`,
        cardId: `crd-contract-${counter}`,
        distributorId: 'dst-contract',
        requestId: `req-${counter}`,
        createdAt: '2026-11-23T10:00:00.000Z',
        expiresAt: '2026-11-23T10:01:00.000Z',
        ...overrides,
      };
    };

    it('gives a link once, after a reopen too, and never again', async () => {
      const stored = link();
      await store.addRevealLink(stored);
      await store.close();
      store = await target.open();
      expect(await store.useRevealLink(stored.tokenHash, '2026-11-23T10:00:30.000Z')).toEqual(stored);
      expect(await store.useRevealLink(stored.tokenHash, '2026-11-23T10:00:31.000Z')).toBeNull();
      expect(await store.useRevealLink('token-hash-unknown', '2026-11-23T10:00:31.000Z')).toBeNull();
    });

    it('finds a usable link without using it: not once used, nor at or after its expiry', async () => {
      const stored = link();
      await store.addRevealLink(stored);
      expect(await store.findRevealLink(stored.tokenHash, '2026-11-23T10:00:10.000Z')).toEqual(stored);
      expect(await store.findRevealLink(stored.tokenHash, '2026-11-23T10:00:11.000Z')).toEqual(stored);
      expect(await store.findRevealLink(stored.tokenHash, stored.expiresAt)).toBeNull();
      expect(await store.findRevealLink('token-hash-unknown', '2026-11-23T10:00:11.000Z')).toBeNull();
      expect(await store.useRevealLink(stored.tokenHash, '2026-11-23T10:00:12.000Z')).toEqual(stored);
      expect(await store.findRevealLink(stored.tokenHash, '2026-11-23T10:00:13.000Z')).toBeNull();
    });

    it('refuses a link at or after its expiry', async () => {
      const stored = link();
      await store.addRevealLink(stored);
      expect(await store.useRevealLink(stored.tokenHash, stored.expiresAt)).toBeNull();
    });

    it('gives a link to exactly one of many concurrent uses', async () => {
      const stored = link();
      await store.addRevealLink(stored);
      const uses = await Promise.all(
        Array.from({ length: 20 }, () => store.useRevealLink(stored.tokenHash, '2026-11-23T10:00:10.000Z')),
      );
      expect(uses.filter((use) => use !== null)).toHaveLength(1);
    });
  });
}
