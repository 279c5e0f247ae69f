import type { LedgerContext } from '@cip/wallets/contract';
import { openEmbeddedWallets, WalletsService } from '@cip/wallets/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printFigures, type Figure } from './append-bench';
import { fundedWallets } from './funded-wallets';

const WALLETS = 256;
const WRITERS = 64;
const DURATION_MS = 5_000;
const HOT_WRITERS = 16;
const HOT_DURATION_MS = 2_000;
const USDC = 1_000_000;
const context: LedgerContext = { environment: 'sandbox', distributorId: 'dst-bench' };

/**
 * Ledger postings per second through the wallets service's command path (load the wallet stream, decide,
 * append with the expected revision, durable group commit) on the embedded store, with the wallets and
 * transactions read models consuming in the same process as they do in the platform. Each writer loops
 * over hold -> settle on its own wallets (two postings per payment); a second run aims every writer at one
 * hot wallet, where optimistic concurrency makes writers retry.
 */
export async function ledgerPostingsBench(): Promise<Figure[]> {
  console.log('\n== Ledger postings (wallets command path, embedded store) ==');
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-bench-ledger-'));
  const { wallets, consumers, close } = await openEmbeddedWallets(dataDir);
  try {
    const ids = await fundedWallets(wallets, context, {
      count: WALLETS,
      amount: 1_000_000 * USDC,
      prefix: 'bench',
    });
    await consumers.drain('sandbox');

    const spread = await payments(
      wallets,
      WRITERS,
      DURATION_MS,
      (writer, n) => ids[(writer + n * WRITERS) % WALLETS],
    );
    const hot = await payments(wallets, HOT_WRITERS, HOT_DURATION_MS, () => ids[0]);
    const figures: Figure[] = [
      {
        label: `ledger postings/s, ${WRITERS} writers over ${WALLETS} wallets (hold + settle)`,
        value: spread,
        unit: 'postings/s',
        target: { op: '>=', value: 5_000 },
      },
      {
        label: `ledger postings/s, ${HOT_WRITERS} writers on one hot wallet`,
        value: hot,
        unit: 'postings/s',
      },
    ];
    printFigures(figures);
    return figures;
  } finally {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs `writers` loops of hold + settle for `durationMs`; returns postings per second. */
async function payments(
  wallets: WalletsService,
  writers: number,
  durationMs: number,
  walletFor: (writer: number, n: number) => string,
): Promise<number> {
  let postings = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let n = 0; performance.now() - started < durationMs; n++) {
        const walletId = walletFor(writer, n);
        const holdId = `aut-${writers}-${writer}-${n}`;
        await wallets.placeHold(context, walletId, { holdId, amount: 12_340_000 });
        await wallets.settleHold(context, walletId, holdId, 12_340_000);
        postings += 2;
      }
    }),
  );
  return (postings / (performance.now() - started)) * 1000;
}
