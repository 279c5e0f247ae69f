import { randomUUID } from 'node:crypto';
import type { PersonalDataKeyStore } from '../personal-data/personal-data-key-store.port';

export interface PersonalDataKeyStoreContractTarget {
  open(): Promise<PersonalDataKeyStore>;
  cleanup(): Promise<void>;
}

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-02-01T00:00:00.000Z';

/** What every personal-data key store does (SQLite embedded, MongoDB distributed). */
export function personalDataKeyStoreContract(target: PersonalDataKeyStoreContractTarget): void {
  let store: PersonalDataKeyStore;
  const subject = () => `usr-${randomUUID()}`;

  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('knows no key for a subject that never had one', async () => {
    expect(await store.get(subject())).toBeNull();
  });

  it('keeps the first key stored: of concurrent creations one wins and every caller gets it', async () => {
    const id = subject();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.create(id, `wrapped-${i}`, T0)),
    );
    const winner = results[0];
    expect(winner.status).toBe('active');
    for (const result of results) expect(result).toEqual(winner);
    expect(await store.get(id)).toEqual(winner);
    expect(await store.create(id, 'another', T1)).toEqual(winner);
  });

  it('erases a key for good: a tombstone stays and no new key can be made', async () => {
    const id = subject();
    await store.create(id, 'wrapped', T0);
    await store.erase(id, T1);
    expect(await store.get(id)).toEqual({ status: 'erased', erasedAt: T1 });
    expect(await store.create(id, 'resurrected', T1)).toEqual({ status: 'erased', erasedAt: T1 });
    expect(await store.get(id)).toEqual({ status: 'erased', erasedAt: T1 });
  });

  it('keeps the time of the first erasure when erased again', async () => {
    const id = subject();
    await store.create(id, 'wrapped', T0);
    await store.erase(id, T0);
    await store.erase(id, T1);
    expect(await store.get(id)).toEqual({ status: 'erased', erasedAt: T0 });
  });

  it('tombstones a subject erased before it ever had a key', async () => {
    const id = subject();
    await store.erase(id, T0);
    expect(await store.create(id, 'wrapped', T1)).toEqual({ status: 'erased', erasedAt: T0 });
  });

  it("erases one subject's key only", async () => {
    const [erased, kept] = [subject(), subject()];
    await store.create(erased, 'wrapped-erased', T0);
    const key = await store.create(kept, 'wrapped-kept', T0);
    await store.erase(erased, T1);
    expect(await store.get(kept)).toEqual(key);
  });
}
