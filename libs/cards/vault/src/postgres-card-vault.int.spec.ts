import { isLuhnValid, SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { CardVault, type IssuedCard } from './card-vault';
import type { CardVaultStore, PutOutcome } from './card-vault-store.port';
import { FileKeyEncryptionKeys } from './key-encryption-keys';
import { loadCardVaultKeys, openPostgresCardVault } from './open-card-vault';
import { PostgresCardVaultStore } from './postgres-card-vault-store';

const now = new Date('2026-11-23T10:00:00.000Z');
const issue = (vault: CardVault) => vault.issueCard({ bin: SANDBOX_TEST_BIN, lifetimeMonths: 36, now });

/** The store, counting the puts that end as `outcome`. */
const counting = (store: CardVaultStore, outcome: PutOutcome, count: () => void): CardVaultStore =>
  new Proxy(store, {
    get: (target, property) =>
      property === 'put'
        ? async (card: Parameters<CardVaultStore['put']>[0]) => {
            const result = await target.put(card);
            if (result === outcome) count();
            return result;
          }
        : (Reflect.get(target, property) as () => unknown).bind(target),
  });

describe('the distributed card vault on PostgreSQL (openPostgresCardVault)', () => {
  it('refuses to start without every key configured, naming the variables to set', async () => {
    const keks = JSON.stringify({ active: 'kek-1', keys: { 'kek-1': randomBytes(32).toString('base64') } });
    await expect(
      // Refused before any connection is made: nothing listens there.
      openPostgresCardVault({
        databaseUrl: 'postgres://cip@127.0.0.1:9/cip',
        environment: 'production',
        configured: { keks },
      }),
    ).rejects.toThrow(
      'set CARD_VAULT_INDEX_KEY_PRODUCTION, CARD_VAULT_CVK_PRODUCTION, CARD_VAULT_PVK_PRODUCTION',
    );
  });
});

describeWhenConfigured('DATABASE_URL', 'card vault on PostgreSQL: processes sharing one vault', (url) => {
  jest.setTimeout(120_000);
  let dataDir: string;
  let schema: string;
  const opened: CardVault[] = [];
  /** A vault on a pool of its own, as another process would have, with the same keys. */
  const open = async (
    options: {
      randomDigit?: () => number;
      store?: (s: CardVaultStore) => CardVaultStore;
      onCommit?: (puts: number) => void;
    } = {},
  ) => {
    const store = await PostgresCardVaultStore.connect({ url, schema, max: 3, onCommit: options.onCommit });
    const vault = new CardVault(
      options.store ? options.store(store) : store,
      new FileKeyEncryptionKeys({ dataDir, environment: 'sandbox' }),
      loadCardVaultKeys({ dataDir, environment: 'sandbox' }),
      { randomDigit: options.randomDigit },
    );
    opened.push(vault);
    return vault;
  };
  const asAdmin = async <T>(work: (admin: Pool) => Promise<T>): Promise<T> => {
    const admin = new Pool({ connectionString: url, max: 1 });
    try {
      return await work(admin);
    } finally {
      await admin.end();
    }
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-postgres-vault-'));
    schema = `card_vault_int_${randomBytes(6).toString('hex')}`;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((vault) => vault.close()));
    await asAdmin((admin) => admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('never gives out one PAN twice when two processes issue at once on a crowded range', async () => {
    let collisions = 0;
    const count = (store: CardVaultStore) => counting(store, 'duplicate_pan', () => collisions++);
    // Account digits of 0 or 1 only: 2^7 = 128 possible PANs for 64 cards, so draws collide often.
    const binary = () => randomInt(2);
    const vaults = [
      await open({ randomDigit: binary, store: count }),
      await open({ randomDigit: binary, store: count }),
    ];
    const cards = await Promise.all(Array.from({ length: 64 }, (_, i) => issue(vaults[i % 2])));
    const pans = await Promise.all(cards.map((c) => vaults[0].revealForHostedPage(c.vaultRef)));
    expect(new Set(pans.map((p) => p.pan)).size).toBe(64);
    expect(collisions).toBeGreaterThan(0);
  });

  it('rotates while another process issues cards: every card decrypts and the old KEK goes only once unused', async () => {
    const cli = await open();
    let staleKeks = 0;
    const platform = await open({ store: (store) => counting(store, 'stale_kek', () => staleKeks++) });
    const before = await Promise.all(Array.from({ length: 200 }, () => issue(platform)));
    const oldKekId = (await cli.registeredKeks())[0].kekId;

    let rotating = true;
    const during: IssuedCard[] = [];
    const issuer = async () => {
      while (rotating) during.push(await issue(platform));
    };
    const rotation = cli.rotateKek({ batchSize: 10 }).finally(() => (rotating = false));
    const [result] = await Promise.all([rotation, ...Array.from({ length: 8 }, issuer)]);
    expect(during.length).toBeGreaterThan(0);
    // Cards wrapped by the old KEK after the switch were refused by the store and wrapped again.
    expect(staleKeks).toBeGreaterThan(0);
    expect(result).toMatchObject({ resumed: false, retired: [oldKekId] });

    const ring = JSON.parse(readFileSync(join(dataDir, 'secrets', 'sandbox-card-vault-keks'), 'utf8'));
    expect(Object.keys(ring.keys)).toEqual([result.kekId]);
    const all = [...before, ...during];
    expect(await cli.registeredKeks()).toEqual([
      { kekId: result.kekId, status: 'active', cards: all.length },
    ]);
    const fresh = await open();
    const pans = await Promise.all(all.map((c) => fresh.revealForHostedPage(c.vaultRef)));
    expect(pans.every((p, i) => p.pan.endsWith(all[i].last4))).toBe(true);
    expect(new Set(pans.map((p) => p.pan)).size).toBe(all.length);
  });

  it('commits many concurrent issues in a few transactions, acknowledging each once durable', async () => {
    const commits: number[] = [];
    const vault = await open({ onCommit: (puts) => commits.push(puts) });
    const cards = await Promise.all(Array.from({ length: 500 }, () => issue(vault)));
    expect(commits.reduce((sum, puts) => sum + puts, 0)).toBe(500);
    expect(commits.length).toBeLessThan(500);
    await vault.close();

    const reopened = await open();
    const pans = await Promise.all(cards.map((c) => reopened.revealForHostedPage(c.vaultRef)));
    expect(new Set(pans.map((p) => p.pan)).size).toBe(500);
    expect(pans.every((p, i) => isLuhnValid(p.pan) && p.pan.endsWith(cards[i].last4))).toBe(true);
  });

  it('keeps no PAN in clear in its tables', async () => {
    const vault = await open();
    const cards = await Promise.all(Array.from({ length: 20 }, () => issue(vault)));
    const pans = await Promise.all(cards.map((c) => vault.revealForHostedPage(c.vaultRef)));
    await vault.setPin(cards[0].vaultRef, '1234');
    const dump = await asAdmin(async (admin) => {
      const tables = ['cards', 'key_encryption_keys', 'reveal_links'];
      const rows = await Promise.all(tables.map((table) => admin.query(`SELECT * FROM ${schema}.${table}`)));
      return JSON.stringify(rows.map((result) => result.rows));
    });
    expect(dump).toContain(cards[0].vaultRef);
    for (const { pan, cvv2 } of pans) {
      expect(dump).not.toContain(pan);
      expect(dump).not.toContain(`"${cvv2}"`);
    }
  });
});
