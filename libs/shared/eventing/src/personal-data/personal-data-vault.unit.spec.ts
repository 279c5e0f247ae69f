import type { PersonalDataPolicy } from '@cip/shared/contracts';
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventData, RecordedEvent } from '../event-store.port';
import type { PersonalDataKeyStore, SubjectKey } from './personal-data-key-store.port';
import { PersonalDataErasedError, PersonalDataVault, SEALED_FIELD } from './personal-data-vault';

/** The port's semantics in memory; the adapters are held to the same by the contract suite. */
class MemoryKeyStore implements PersonalDataKeyStore {
  readonly keys = new Map<string, SubjectKey>();
  async get(subjectId: string) {
    return this.keys.get(subjectId) ?? null;
  }
  async create(subjectId: string, wrappedKey: string) {
    if (!this.keys.has(subjectId)) this.keys.set(subjectId, { status: 'active', wrappedKey });
    return this.keys.get(subjectId) as SubjectKey;
  }
  async erase(subjectId: string, at: string) {
    this.keys.set(subjectId, { status: 'erased', erasedAt: at });
  }
  async close() {
    this.keys.clear();
  }
}

const policy: PersonalDataPolicy = {
  PersonCreated: { subject: 'personId', fields: ['email', 'name', 'address'] },
};
const AT = '2026-01-01T00:00:00.000Z';

const event = (type: string, data: Record<string, unknown>): EventData => ({
  type,
  data,
  metadata: { eventId: randomUUID(), occurredAt: AT, schemaVersion: 1 },
});
let position = 0;
const recorded = (written: EventData): RecordedEvent => ({
  ...written,
  streamId: String(written.data.personId),
  revision: 0,
  position: ++position,
});
const ada = () =>
  event('PersonCreated', {
    personId: 'usr-ada',
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    address: { city: 'London' },
    country: 'GB',
  });

describe('personal-data vault', () => {
  let keys: MemoryKeyStore;
  let vault: PersonalDataVault;
  const masterKey = randomBytes(32);
  beforeEach(() => {
    keys = new MemoryKeyStore();
    vault = new PersonalDataVault(keys, masterKey, [policy]);
  });

  it('seals the personal fields into one envelope: nothing personal stays in clear', async () => {
    const [sealed] = await vault.seal([ada()]);
    const text = JSON.stringify(sealed);
    for (const clear of ['ada@example.com', 'Ada Lovelace', 'London']) expect(text).not.toContain(clear);
    expect(sealed.data).toEqual({
      personId: 'usr-ada',
      country: 'GB',
      [SEALED_FIELD]: {
        enc: 'v1',
        keyId: 'usr-ada',
        fields: ['email', 'name', 'address'],
        ct: expect.any(String),
      },
    });
    // The stored data key is wrapped too.
    expect(JSON.stringify([...keys.keys.values()])).not.toMatch(/ada/i);
  });

  it('opens what it sealed to the event as written', async () => {
    const written = ada();
    const [sealed] = await vault.seal([written]);
    const [opened] = await vault.open([recorded(sealed)]);
    expect(opened.data).toEqual(written.data);
  });

  it('leaves events without personal data as they are', async () => {
    const other = event('PersonFrozen', { personId: 'usr-ada', reason: 'x' });
    expect(await vault.seal([other])).toEqual([other]);
  });

  it('reads the personal fields as null once the key is erased, in sealed and in clear events', async () => {
    const [sealed] = await vault.seal([ada()]);
    const legacy = ada(); // written before sealing existed
    await vault.erase('usr-ada', AT);
    const opened = await vault.open([recorded(sealed), recorded(legacy)]);
    for (const { data } of opened) {
      expect(data).toEqual({ personId: 'usr-ada', country: 'GB', email: null, name: null, address: null });
    }
  });

  it("erases one person's data only", async () => {
    const grace = event('PersonCreated', {
      personId: 'usr-grace',
      email: 'grace@example.com',
      name: 'Grace',
    });
    const sealed = await vault.seal([ada(), grace]);
    await vault.erase('usr-ada', AT);
    const [erased, kept] = await vault.open(sealed.map(recorded));
    expect(erased.data.email).toBeNull();
    expect(kept.data).toEqual(grace.data);
  });

  it('refuses to seal new personal data of an erased person', async () => {
    await vault.seal([ada()]);
    await vault.erase('usr-ada', AT);
    await expect(vault.seal([ada()])).rejects.toBeInstanceOf(PersonalDataErasedError);
  });

  it('does not open with another master key, nor an envelope moved to another event', async () => {
    const [sealed] = await vault.seal([ada()]);
    const otherMaster = new PersonalDataVault(keys, randomBytes(32), [policy]);
    await expect(otherMaster.open([recorded(sealed)])).rejects.toThrow();
    const moved = { ...recorded(sealed), metadata: { ...sealed.metadata, eventId: randomUUID() } };
    await expect(vault.open([moved])).rejects.toThrow();
  });

  it('says so when the log names a key its key store never had, instead of reading it as erased', async () => {
    const [sealed] = await vault.seal([ada()]);
    const elsewhere = new PersonalDataVault(new MemoryKeyStore(), masterKey, [policy]);
    await expect(elsewhere.open([recorded(sealed)])).rejects.toThrow(/does not belong to this event log/);
  });

  it('hashes lookup values with a key: another master key gives another index', () => {
    const other = new PersonalDataVault(keys, randomBytes(32), [policy]);
    expect(vault.blindIndex('dst|email|ada@example.com')).toBe(vault.blindIndex('dst|email|ada@example.com'));
    expect(other.blindIndex('dst|email|ada@example.com')).not.toBe(
      vault.blindIndex('dst|email|ada@example.com'),
    );
  });

  describe('with a key store that tells when another process changed a key', () => {
    /** Counts lookups; `otherProcessErases` changes a key behind the vault, as the CLI does. */
    class MarkedKeyStore extends MemoryKeyStore {
      mark = 0;
      lookups = 0;
      /** When set, lookups wait for it (to interleave an erasure with a lookup). */
      gate: Promise<void> | undefined;
      override async get(subjectId: string) {
        this.lookups += 1;
        const found = this.keys.get(subjectId) ?? null;
        await this.gate;
        return found;
      }
      changeMark() {
        return this.mark;
      }
      async otherProcessErases(subjectId: string) {
        await this.erase(subjectId, AT);
        this.mark += 1;
      }
    }
    let marked: MarkedKeyStore;
    beforeEach(() => {
      marked = new MarkedKeyStore();
      vault = new PersonalDataVault(marked, masterKey, [policy]);
    });
    const erasedAda = { personId: 'usr-ada', country: 'GB', email: null, name: null, address: null };

    it('keeps opened keys between calls: the next calls do not look the key up again', async () => {
      const written = ada();
      const stored = recorded((await vault.seal([written]))[0]);
      await vault.open([stored]);
      const lookups = marked.lookups;
      const [opened] = await vault.open([stored]);
      expect(opened.data).toEqual(written.data);
      expect(marked.lookups).toBe(lookups);
    });

    it('drops the key at once when this vault erases it: nothing opens after the erasure', async () => {
      const stored = recorded((await vault.seal([ada()]))[0]);
      await vault.open([stored]);
      await vault.erase('usr-ada', AT);
      expect((await vault.open([stored]))[0].data).toEqual(erasedAda);
      expect((await vault.open([stored], { shared: true }))[0].data).toEqual(erasedAda);
      await expect(vault.seal([ada()])).rejects.toBeInstanceOf(PersonalDataErasedError);
    });

    it('reads an erasure made by another process on its next call', async () => {
      const stored = recorded((await vault.seal([ada()]))[0]);
      await vault.open([stored], { shared: true });
      await marked.otherProcessErases('usr-ada');
      expect((await vault.open([stored], { shared: true }))[0].data).toEqual(erasedAda);
    });

    it('does not keep a key it read while the key was being erased', async () => {
      const stored = recorded((await vault.seal([ada()]))[0]);
      let release = () => undefined as void;
      marked.gate = new Promise<void>((resolve) => (release = resolve));
      const racing = new PersonalDataVault(marked, masterKey, [policy]);
      const reading = racing.open([stored]);
      await racing.erase('usr-ada', AT);
      release();
      await reading;
      marked.gate = undefined;
      expect((await racing.open([stored]))[0].data).toEqual(erasedAda);
    });

    it('does not keep a key it read while another process erased it', async () => {
      const stored = recorded((await vault.seal([ada()]))[0]);
      let release = () => undefined as void;
      marked.gate = new Promise<void>((resolve) => (release = resolve));
      const racing = new PersonalDataVault(marked, masterKey, [policy]);
      const reading = racing.open([stored]);
      await marked.otherProcessErases('usr-ada');
      // Another call notices the change while the first one still holds the key it read before.
      marked.gate = undefined;
      expect((await racing.open([stored]))[0].data).toEqual(erasedAda);
      release();
      await reading;
      expect((await racing.open([stored]))[0].data).toEqual(erasedAda);
    });

    it('opens an event once for all the consumers, as a frozen copy, leaving the stored event sealed', async () => {
      const written = ada();
      const stored = recorded((await vault.seal([written]))[0]);
      const storedText = JSON.stringify(stored);
      const [first] = await vault.open([stored], { shared: true });
      const [second] = await vault.open([stored], { shared: true });
      expect(second).toBe(first);
      expect(first.data).toEqual(written.data);
      expect(Object.isFrozen(first) && Object.isFrozen(first.data)).toBe(true);
      expect(JSON.stringify(stored)).toBe(storedText);
      // Readers that did not ask to share get their own copy.
      const [own] = await vault.open([stored]);
      expect(own).not.toBe(first);
      expect(Object.isFrozen(own)).toBe(false);
    });
  });
});
