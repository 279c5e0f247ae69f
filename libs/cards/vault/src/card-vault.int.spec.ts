import { isLuhnValid, SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { waitFor } from '@cip/shared/testing';
import Database from 'better-sqlite3';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox } from '@cip/shared/runtime';
import { CardVault, type IssuedCard } from './card-vault';
import type { CardVaultStore, PutOutcome, SealedCard } from './card-vault-store.port';
import { FileKeyEncryptionKeys } from './key-encryption-keys';
import { loadCardVaultKeys, openEmbeddedCardVault } from './open-card-vault';
import { SqliteCardVaultStore } from './sqlite-card-vault-store';

const now = new Date('2026-11-23T10:00:00.000Z');
const issue = (vault: CardVault, bin = SANDBOX_TEST_BIN) => vault.issueCard({ bin, lifetimeMonths: 36, now });

/** Wraps a vault's store to count the puts that come back with this outcome. */
const countingPuts =
  (outcome: PutOutcome, count: () => void) =>
  (store: CardVaultStore): CardVaultStore =>
    new Proxy(store, {
      get: (target, property) =>
        property === 'put'
          ? async (card: SealedCard) => {
              const result = await target.put(card);
              if (result === outcome) count();
              return result;
            }
          : (Reflect.get(target, property) as () => unknown).bind(target),
    });

describe('card vault (embedded)', () => {
  let dataDir: string;
  const opened: CardVault[] = [];
  const open = (
    options: {
      randomDigit?: () => number;
      store?: (s: CardVaultStore) => CardVaultStore;
      onCommit?: (puts: number) => void;
    } = {},
  ) => {
    const store = SqliteCardVaultStore.open(join(dataDir, 'sandbox-vault.sqlite'), {
      onCommit: options.onCommit,
    });
    const vault = new CardVault(
      options.store ? options.store(store) : store,
      new FileKeyEncryptionKeys({ dataDir, environment: 'sandbox' }),
      loadCardVaultKeys({ dataDir, environment: 'sandbox' }),
      { randomDigit: options.randomDigit },
    );
    opened.push(vault);
    return vault;
  };
  const vaultFiles = () =>
    ['', '-wal'].map((suffix) => {
      try {
        return readFileSync(join(dataDir, `sandbox-vault.sqlite${suffix}`));
      } catch {
        return Buffer.alloc(0);
      }
    });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-card-vault-'));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((v) => v.close()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('moves its WAL into the database file while it runs (the store checkpoints off the request thread)', async () => {
    const vault = open();
    const mainFileSize = () => statSync(join(dataDir, 'sandbox-vault.sqlite')).size;
    const before = mainFileSize();
    for (let i = 0; i < 50; i++) await issue(vault);
    await waitFor(() => mainFileSize() > before, {
      what: 'the vault WAL to be checkpointed into sandbox-vault.sqlite',
      timeoutMs: 10_000,
    });
  });

  it('issues a card of which only the reference, BIN, last 4 digits and expiry leave the vault', async () => {
    const vault = openEmbeddedCardVault({ dataDir, environment: 'sandbox' });
    opened.push(vault);
    const card = await issue(vault);
    expect(Object.keys(card).sort()).toEqual(['bin', 'expMonth', 'expYear', 'last4', 'vaultRef']);
    expect(card).toMatchObject({ bin: SANDBOX_TEST_BIN, expMonth: 11, expYear: 2029 });

    const revealed = await vault.revealForHostedPage(card.vaultRef);
    expect(revealed.pan).toHaveLength(16);
    expect(revealed.pan.startsWith(SANDBOX_TEST_BIN) && revealed.pan.endsWith(card.last4)).toBe(true);
    expect(isLuhnValid(revealed.pan)).toBe(true);
    expect(revealed).toMatchObject({ expMonth: 11, expYear: 2029, cvv2: expect.stringMatching(/^\d{3}$/) });
  });

  it('verifies the CVV2 with its expiry and refuses another CVV2 or another expiry', async () => {
    const vault = open();
    const card = await issue(vault);
    const { cvv2 } = await vault.revealForHostedPage(card.vaultRef);
    const wrong = String((Number(cvv2) + 1) % 1000).padStart(3, '0');
    expect(await vault.verifyCvv2(card.vaultRef, cvv2, card)).toBe(true);
    expect(await vault.verifyCvv2(card.vaultRef, wrong, card)).toBe(false);
    expect(await vault.verifyCvv2(card.vaultRef, cvv2, { expMonth: 12, expYear: 2029 })).toBe(false);
  });

  it('finds a card by its PAN and expiry through the PAN index, and nothing for another PAN or expiry', async () => {
    const vault = open();
    const card = await issue(vault);
    const { pan } = await vault.revealForHostedPage(card.vaultRef);
    const expiry = { expMonth: card.expMonth, expYear: card.expYear };
    expect(await vault.findByPan(pan, expiry)).toEqual({ vaultRef: card.vaultRef, ...expiry });
    expect(await vault.findByPan(pan, { expMonth: card.expMonth, expYear: card.expYear + 1 })).toBeNull();
    const otherPan = `${pan.slice(0, -1)}${(Number(pan.slice(-1)) + 1) % 10}`;
    expect(await vault.findByPan(otherPan, expiry)).toBeNull();
    expect(await vault.findByPan('not a pan', expiry)).toBeNull();
  });

  it('issues under the reference it is given (the card id under the vault prefix), found again by its PAN', async () => {
    const vault = open();
    const vaultRef = 'vlt-0b9f5a2e-6a3c-4f0e-9d55-0c6b1f1d2a10';
    const card = await vault.issueCard({
      bin: SANDBOX_TEST_BIN,
      lifetimeMonths: 36,
      now: new Date(),
      vaultRef,
    });
    expect(card.vaultRef).toBe(vaultRef);
    const { pan } = await vault.revealForHostedPage(vaultRef);
    expect(await vault.findByPan(pan, card)).toEqual({
      vaultRef,
      expMonth: card.expMonth,
      expYear: card.expYear,
    });
  });

  it('issues a card once under a reference, however often and concurrently the issue is retried', async () => {
    const vault = open();
    const vaultRef = 'vlt-5d0c8e1a-2b7f-4c3d-8e9a-1f2b3c4d5e6f';
    const issue = () =>
      vault.issueCard({ bin: SANDBOX_TEST_BIN, lifetimeMonths: 36, now: new Date(), vaultRef });
    const first = await issue();
    // Retried alone, then by ten callers at once, with other cards in the same group commits.
    const again = await Promise.all([
      issue(),
      ...Array.from({ length: 10 }, issue),
      ...Array.from({ length: 10 }, () =>
        vault.issueCard({ bin: SANDBOX_TEST_BIN, lifetimeMonths: 36, now: new Date() }),
      ),
    ]);
    for (const retried of again.slice(0, 11)) expect(retried).toEqual(first);
    for (const other of again.slice(11)) expect(other.vaultRef).not.toBe(vaultRef);
    const { pan } = await vault.revealForHostedPage(vaultRef);
    expect(pan.slice(-4)).toBe(first.last4);
  });

  it('verifies a PIN set on the card, and refuses a malformed one with a validation error', async () => {
    const vault = open();
    const card = await issue(vault);
    expect(await vault.verifyPin(card.vaultRef, '1234')).toBe(false);
    await vault.setPin(card.vaultRef, '4821');
    expect(await vault.verifyPin(card.vaultRef, '4821')).toBe(true);
    expect(await vault.verifyPin(card.vaultRef, '4822')).toBe(false);
    await expect(vault.setPin(card.vaultRef, '48a1')).rejects.toMatchObject({ code: 'validation_error' });
    expect(await vault.verifyPin(card.vaultRef, '4821')).toBe(true);
  });

  it('answers not found for an unknown reference', async () => {
    await expect(open().revealForHostedPage('vlt-unknown')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses to open a sealed PAN that was altered or moved to another card', async () => {
    const vault = open();
    const [a, b] = [await issue(vault), await issue(vault)];
    const db = new Database(join(dataDir, 'sandbox-vault.sqlite'));
    try {
      const sealedOf = (ref: string) =>
        (db.prepare('SELECT sealed_pan FROM cards WHERE vault_ref = ?').get(ref) as { sealed_pan: string })
          .sealed_pan;
      const sealedB = sealedOf(b.vaultRef);
      db.prepare('UPDATE cards SET sealed_pan = ? WHERE vault_ref = ?').run(sealedOf(a.vaultRef), b.vaultRef);
      await expect(vault.revealForHostedPage(b.vaultRef)).rejects.toThrow();

      const [version, iv, tag, data] = sealedB.split('.');
      const flipped = Buffer.from(data, 'base64');
      flipped[0] ^= 1;
      db.prepare('UPDATE cards SET sealed_pan = ? WHERE vault_ref = ?').run(
        [version, iv, tag, flipped.toString('base64')].join('.'),
        b.vaultRef,
      );
      await expect(vault.revealForHostedPage(b.vaultRef)).rejects.toThrow();
      expect((await vault.revealForHostedPage(a.vaultRef)).pan).toMatch(/^\d{16}$/);
    } finally {
      db.close();
    }
  });

  it('never gives out one PAN twice when many cards are issued at once from two connections on a crowded range', async () => {
    let collisions = 0;
    const counting = countingPuts('duplicate_pan', () => collisions++);
    // Account digits of 0 or 1 only: 2^7 = 128 possible PANs for 64 cards, so draws collide often.
    const binary = () => randomInt(2);
    const vaults = [
      open({ randomDigit: binary, store: counting }),
      open({ randomDigit: binary, store: counting }),
    ];
    const cards = await Promise.all(Array.from({ length: 64 }, (_, i) => issue(vaults[i % 2])));
    const pans = await Promise.all(cards.map((c) => vaults[0].revealForHostedPage(c.vaultRef)));
    expect(new Set(pans.map((p) => p.pan)).size).toBe(64);
    expect(collisions).toBeGreaterThan(0);
  });

  it('refuses with 409 when a BIN range has no unused PAN left, storing nothing', async () => {
    const vault = open({ randomDigit: () => 0 });
    await issue(vault);
    await expect(issue(vault)).rejects.toMatchObject({ code: 'invalid_state_transition' });
  });

  it('re-wraps every data key under a new KEK while reads go on, then forgets the old KEK', async () => {
    const vault = open();
    const other = open(); // another process's vault on the same files (the platform while the CLI rotates)
    const cards = await Promise.all(Array.from({ length: 300 }, () => issue(vault)));
    const before = await Promise.all(cards.map((c) => vault.revealForHostedPage(c.vaultRef)));
    const oldKekId = new FileKeyEncryptionKeys({ dataDir, environment: 'sandbox' }).activeId();

    const [rotation, ...during] = await Promise.all([
      vault.rotateKek(),
      ...cards.map((c, i) => (i % 2 ? vault : other).revealForHostedPage(c.vaultRef)),
    ]);
    expect(during).toEqual(before);
    expect(rotation.rewrapped).toBe(300);
    expect(rotation.kekId).not.toBe(oldKekId);

    const ring = JSON.parse(readFileSync(join(dataDir, 'secrets', 'sandbox-card-vault-keks'), 'utf8'));
    expect(Object.keys(ring.keys)).toEqual([rotation.kekId]);
    const after = await Promise.all(cards.map((c) => other.revealForHostedPage(c.vaultRef)));
    expect(after).toEqual(before);
    const fresh = await issue(other);
    expect((await vault.rotateKek()).rewrapped).toBe(cards.length + 1);
    expect(
      await vault.verifyCvv2(fresh.vaultRef, (await other.revealForHostedPage(fresh.vaultRef)).cvv2, fresh),
    ).toBe(true);
  });

  it('rotates while another connection issues cards: every card decrypts and the old KEK goes only once unused', async () => {
    const cli = open(); // the CLI's vault
    let staleKeks = 0;
    const counting = countingPuts('stale_kek', () => staleKeks++);
    // The platform's, with its own KEK ring and store connection on the same files.
    const platform = open({ store: counting });
    const before = await Promise.all(Array.from({ length: 200 }, () => issue(platform)));
    const oldKekId = (await cli.registeredKeks())[0].kekId;

    // Cards are issued from the platform's vault until the rotation is over, so many are issued after its
    // old KEK was read and before the switch (the old race: such a card was left wrapped by a removed KEK).
    let rotating = true;
    const during: IssuedCard[] = [];
    const issuer = async () => {
      while (rotating) during.push(await issue(platform));
    };
    const rotation = cli.rotateKek({ batchSize: 10 }).finally(() => (rotating = false));
    const [result] = await Promise.all([rotation, ...Array.from({ length: 8 }, issuer)]);
    expect(during.length).toBeGreaterThan(0);
    // Some cards were wrapped by the old KEK after the switch: the store refused them and they were
    // wrapped again under the new one.
    expect(staleKeks).toBeGreaterThan(0);
    expect(result).toMatchObject({ resumed: false, retired: [oldKekId] });

    const ring = JSON.parse(readFileSync(join(dataDir, 'secrets', 'sandbox-card-vault-keks'), 'utf8'));
    expect(Object.keys(ring.keys)).toEqual([result.kekId]);
    const all = [...before, ...during];
    expect(await cli.registeredKeks()).toEqual([
      { kekId: result.kekId, status: 'active', cards: all.length },
    ]);
    const fresh = open(); // a process started after the rotation
    const pans = await Promise.all(all.map((c) => fresh.revealForHostedPage(c.vaultRef)));
    expect(pans.every((p, i) => p.pan.endsWith(all[i].last4))).toBe(true);
    expect(new Set(pans.map((p) => p.pan)).size).toBe(all.length);
    // The platform issues under the new KEK from now on.
    const after = await issue(platform);
    expect((await fresh.revealForHostedPage(after.vaultRef)).pan.endsWith(after.last4)).toBe(true);
    expect(await cli.registeredKeks()).toEqual([
      { kekId: result.kekId, status: 'active', cards: all.length + 1 },
    ]);
  });

  it('finishes an interrupted rotation when run again, keeping the KEK it had switched to', async () => {
    const vault = open();
    const cards = await Promise.all(Array.from({ length: 30 }, () => issue(vault)));
    // A rotation that stopped right after switching the active KEK and re-wrapping part of the keys.
    const store = SqliteCardVaultStore.open(join(dataDir, 'sandbox-vault.sqlite'));
    const keks = new FileKeyEncryptionKeys({ dataDir, environment: 'sandbox' });
    await store.activateKek('kek-interrupted', () => keks.add('kek-interrupted'));
    await store.rewrapBatch('kek-interrupted', 10, (c) =>
      new SecretBox(keks.key('kek-interrupted')).seal(
        new SecretBox(keks.key(c.kekId)).openBytes(c.wrappedKey, `card data key|${c.vaultRef}`),
        `card data key|${c.vaultRef}`,
      ),
    );
    await store.close();

    const result = await open().rotateKek();
    expect(result).toMatchObject({ kekId: 'kek-interrupted', resumed: true, rewrapped: 20 });
    const fresh = open();
    for (const c of cards)
      expect((await fresh.revealForHostedPage(c.vaultRef)).pan.endsWith(c.last4)).toBe(true);
    expect(await fresh.registeredKeks()).toEqual([{ kekId: 'kek-interrupted', status: 'active', cards: 30 }]);
  });

  it('commits many concurrent issues in a few transactions, acknowledging each once durable: distinct PANs that all decrypt', async () => {
    const commits: number[] = [];
    const vault = open({ onCommit: (puts) => commits.push(puts) });
    const cards = await Promise.all(Array.from({ length: 500 }, () => issue(vault)));
    expect(commits.reduce((sum, puts) => sum + puts, 0)).toBe(500);
    expect(commits.length).toBeLessThan(500);
    await vault.close();

    const reopened = open(); // what was acknowledged is on disk
    const pans = await Promise.all(cards.map((c) => reopened.revealForHostedPage(c.vaultRef)));
    expect(new Set(pans.map((p) => p.pan)).size).toBe(500);
    expect(pans.every((p, i) => isLuhnValid(p.pan) && p.pan.endsWith(cards[i].last4))).toBe(true);
  });

  it('rotates a configured ring: the new key put first is active after a restart, and the rotation re-wraps under it', async () => {
    const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
    const configured = (keks: object) =>
      openEmbeddedCardVault({ dataDir, environment: 'sandbox', configured: { keks: JSON.stringify(keks) } });
    const before = configured({ active: 'kek-one', keys: { 'kek-one': key(1) } });
    opened.push(before);
    const cards = await Promise.all(Array.from({ length: 12 }, () => issue(before)));
    await before.close();

    const restarted = configured({ active: 'kek-two', keys: { 'kek-two': key(2), 'kek-one': key(1) } });
    opened.push(restarted);
    const fresh = await issue(restarted);
    expect(await restarted.registeredKeks()).toEqual([
      { kekId: 'kek-two', status: 'active', cards: 1 },
      { kekId: 'kek-one', status: 'retiring', cards: 12 },
    ]);
    expect(await restarted.rotateKek()).toMatchObject({
      kekId: 'kek-two',
      rewrapped: 12,
      retired: ['kek-one'],
    });

    const withoutOldKey = configured({ active: 'kek-two', keys: { 'kek-two': key(2) } });
    opened.push(withoutOldKey);
    for (const card of [...cards, fresh]) {
      expect((await withoutOldKey.revealForHostedPage(card.vaultRef)).pan.endsWith(card.last4)).toBe(true);
    }
  });

  it('leaves no PAN in clear in the vault file or its WAL', async () => {
    const vault = open();
    const cards = await Promise.all(Array.from({ length: 20 }, () => issue(vault)));
    const pans = (await Promise.all(cards.map((c) => vault.revealForHostedPage(c.vaultRef)))).map(
      (r) => r.pan,
    );
    const files = vaultFiles();
    // The files read are the ones written to: the references are there in clear.
    expect(cards.every((c) => files.some((file) => file.includes(c.vaultRef)))).toBe(true);
    for (const pan of pans) expect(files.some((file) => file.includes(pan))).toBe(false);
  });

  it('gives a digital wallet the PAN and expiry (never the CVV2), also while the KEK rotates and from another process', async () => {
    const vault = open();
    const other = open();
    const cards = await Promise.all(Array.from({ length: 100 }, () => issue(vault)));
    const expected = await Promise.all(
      cards.map(async (c) => {
        const { pan, expMonth, expYear } = await vault.revealForHostedPage(c.vaultRef);
        return { pan, expMonth, expYear };
      }),
    );
    const [, ...during] = await Promise.all([
      vault.rotateKek(),
      ...cards.map((c, i) => (i % 2 ? vault : other).revealForProvisioning(c.vaultRef)),
    ]);
    expect(during).toEqual(expected);
    expect(Object.keys(during[0]).sort()).toEqual(['expMonth', 'expYear', 'pan']);
    await expect(
      vault.revealForProvisioning('vlt-00000000-0000-4000-8000-000000000000'),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
