import { SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { openEmbeddedCardVault } from '@cip/cards/vault';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printFigures, type Figure } from './append-bench';

const CARDS = 2_000;
const CONCURRENCY = 50;

async function perSecond(count: number, run: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await run(next++);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/**
 * The card vault on its embedded SQLite file: issuing (PAN draw, HMAC, two AES-GCM seals, a durable
 * insert), revealing (unwrap the data key, open the PAN, derive the CVV2 with 3DES) and CVV2 checks.
 */
export async function cardVaultBench(): Promise<Figure[]> {
  console.log('\n== Card vault (embedded SQLite file) ==');
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-bench-vault-'));
  const vault = openEmbeddedCardVault({ dataDir, environment: 'sandbox' });
  try {
    const now = new Date();
    const cards: Awaited<ReturnType<typeof vault.issueCard>>[] = [];
    const issues = await perSecond(CARDS, async () =>
      cards.push(await vault.issueCard({ bin: SANDBOX_TEST_BIN, lifetimeMonths: 36, now })),
    );
    const reveals = await perSecond(CARDS, (i) => vault.revealForHostedPage(cards[i].vaultRef));
    const checks = await perSecond(CARDS, (i) => vault.verifyCvv2(cards[i].vaultRef, '000', cards[i]));
    const figures: Figure[] = [
      { label: 'card vault: cards issued per second (durable)', value: issues, unit: 'cards/s' },
      { label: 'card vault: reveals (decrypts + CVV2) per second', value: reveals, unit: 'decrypts/s' },
      { label: 'card vault: CVV2 verifications per second', value: checks, unit: 'checks/s' },
    ];
    printFigures(figures);
    return figures;
  } finally {
    await vault.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
