import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { personalDataKeyStoreContract } from '../contract/personal-data-key-store.contract';
import { SqlitePersonalDataKeyStore } from './sqlite-personal-data-key-store';

describe('personal-data key store contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-keys-'));
  let store: SqlitePersonalDataKeyStore;
  personalDataKeyStoreContract({
    open: async () => (store = SqlitePersonalDataKeyStore.open(join(dir, 'sandbox-keys.sqlite'))),
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});

describe('personal-data key store: SQLite files after an erasure', () => {
  it("no longer hold the erased key's bytes, in the database or its WAL", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cip-keys-'));
    const path = join(dir, 'sandbox-keys.sqlite');
    try {
      const store = SqlitePersonalDataKeyStore.open(path);
      const wrapped = `v1.${'K'.repeat(40)}`;
      await store.create('usr-erased', wrapped, '2026-01-01T00:00:00.000Z');
      await store.create('usr-kept', `v1.${'Q'.repeat(40)}`, '2026-01-01T00:00:00.000Z');
      const inFiles = () =>
        ['', '-wal'].some((suffix) => {
          try {
            return readFileSync(`${path}${suffix}`).includes(wrapped);
          } catch {
            return false;
          }
        });
      expect(inFiles()).toBe(true);
      await store.erase('usr-erased', '2026-02-01T00:00:00.000Z');
      expect(inFiles()).toBe(false);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('personal-data key store: SQLite change mark', () => {
  it('moves when another connection (another process) changes a key, not for its own writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cip-keys-'));
    const path = join(dir, 'sandbox-keys.sqlite');
    const store = SqlitePersonalDataKeyStore.open(path);
    const other = SqlitePersonalDataKeyStore.open(path);
    try {
      const start = store.changeMark();
      await store.create('usr-a', 'v1.a', '2026-01-01T00:00:00.000Z');
      await store.erase('usr-a', '2026-01-02T00:00:00.000Z');
      expect(store.changeMark()).toBe(start);
      await other.erase('usr-b', '2026-01-02T00:00:00.000Z');
      expect(store.changeMark()).not.toBe(start);
    } finally {
      await other.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('personal-data key store: SQLite creation sync', () => {
  it('answers a lookup of a key being created only once its creation is durable (acknowledged)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cip-keys-'));
    const store = SqlitePersonalDataKeyStore.open(join(dir, 'sandbox-keys.sqlite'));
    try {
      const order: string[] = [];
      const creating = store.create('usr-new', 'v1.new', '2026-01-01T00:00:00.000Z').then((key) => {
        order.push('created');
        return key;
      });
      // The group commit ran (its transaction committed); its WAL sync is under way.
      await new Promise((resolve) => setImmediate(resolve));
      const reading = store.get('usr-new').then((key) => {
        order.push('read');
        return key;
      });
      const [created, read] = await Promise.all([creating, reading]);
      expect(read).toEqual(created);
      expect(order).toEqual(['created', 'read']);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
