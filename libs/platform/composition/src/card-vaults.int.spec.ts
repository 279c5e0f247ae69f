import { SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { PlatformMetrics, readPlatformConfig } from '@cip/shared/runtime';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedCardsOptions } from './card-vaults';

describe("the platform's card issuing per environment, from the configuration", () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-card-vaults-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('issues sandbox cards from the test BIN and no production card, by default', async () => {
    const options = embeddedCardsOptions(dataDir, readPlatformConfig({}).cards);
    try {
      expect(options.issuing('sandbox')).toEqual({ bin: SANDBOX_TEST_BIN, lifetimeMonths: 36 });
      expect(options.issuing('production')).toBeNull();
    } finally {
      await options.close();
    }
  });

  it('issues from the configured BINs and lifetimes, and wraps under the configured KEK', async () => {
    const key = Buffer.alloc(32, 9).toString('base64');
    const config = readPlatformConfig({
      CARD_BIN_PRODUCTION: '45717360',
      CARD_LIFETIME_MONTHS_PRODUCTION: '48',
      CARD_BIN_SANDBOX: '400000',
      CARD_VAULT_KEKS_PRODUCTION: JSON.stringify({
        active: 'kek-configured',
        keys: { 'kek-configured': key },
      }),
    });
    const options = embeddedCardsOptions(dataDir, config.cards);
    try {
      expect(options.issuing('production')).toEqual({ bin: '45717360', lifetimeMonths: 48 });
      expect(options.issuing('sandbox')).toEqual({ bin: '400000', lifetimeMonths: 36 });
      const vault = options.vault('production');
      const card = await vault.issueCard({
        bin: '45717360',
        lifetimeMonths: 48,
        now: new Date('2026-11-23'),
      });
      expect((await vault.revealForHostedPage(card.vaultRef)).pan).toMatch(/^45717360\d{8}$/);
      expect(await vault.registeredKeks()).toEqual([{ kekId: 'kek-configured', status: 'active', cards: 1 }]);
      // A configured ring is never written under DATA_DIR.
      expect(() => readFileSync(join(dataDir, 'secrets', 'production-card-vault-keks'))).toThrow();
    } finally {
      await options.close();
    }
  });

  it("reports how many cards each of the vault's group commits acknowledged, by environment", async () => {
    const metrics = new PlatformMetrics(false);
    const options = embeddedCardsOptions(dataDir, readPlatformConfig({}).cards, metrics);
    try {
      const vault = options.vault('sandbox');
      const issue = () =>
        vault.issueCard({ bin: SANDBOX_TEST_BIN, lifetimeMonths: 36, now: new Date('2026-11-23') });
      await Promise.all(Array.from({ length: 40 }, issue));
      const { values } = await metrics.cardVaultBatchSize.get();
      const value = (name: string) => values.find((v) => v.metricName === name);
      expect(value('card_vault_group_commit_puts_sum')).toMatchObject({
        labels: { environment: 'sandbox' },
        value: 40,
      });
      // Issued at once, they shared commits: fewer transactions than cards.
      expect(value('card_vault_group_commit_puts_count')?.value).toBeLessThan(40);
    } finally {
      await options.close();
    }
  });
});
