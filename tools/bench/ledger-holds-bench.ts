import type { LedgerContext } from '@cip/wallets/contract';
import { openEmbeddedWallets, WalletsService } from '@cip/wallets/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printFigures, type Figure } from './append-bench';
import { fundedWallets } from './funded-wallets';

const WALLETS = 64;
const DURATION_MS = 3_000;
const USDC = 1_000_000;
const context: LedgerContext = { environment: 'sandbox', distributorId: 'dst-bench' };

/**
 * Card authorization holds per second through `WalletLedger.placeHold` (load the cached wallet state,
 * decide, append with the expected revision in the durable group commit) on the embedded store: the
 * ledger's share of the authorization path, whose target is 10,000 authorizations/s over 64 wallets.
 * Callers loop placing holds, each on the next of 64 wallets (with 64 and with 512 callers in flight),
 * then 16 callers on one hot wallet, where the per-wallet queue runs them one at a time. The wallets and
 * transactions read models consume in the same process, as in the platform; one more run without them
 * shows what they cost. Holds stay open, as authorizations do until cleared.
 */
export async function ledgerHoldsBench(): Promise<Figure[]> {
  console.log('\n== Ledger holds (WalletLedger.placeHold, embedded store) ==');
  const figures: Figure[] = [];
  for (const withConsumers of [true, false]) {
    const bench = await openBench(withConsumers);
    try {
      const runs = withConsumers
        ? [
            { callers: 64, hot: false },
            { callers: 512, hot: false },
            { callers: 16, hot: true },
          ]
        : [{ callers: 64, hot: false }];
      for (const { callers, hot } of runs) {
        const rate = await holds(
          bench.wallets,
          callers,
          hot ? () => bench.ids[0] : (n) => bench.ids[n % WALLETS],
        );
        figures.push({
          label: hot
            ? `holds/s, ${callers} callers on one hot wallet`
            : `holds/s, ${callers} callers over ${WALLETS} wallets${withConsumers ? '' : ', no read-model consumers'}`,
          value: rate,
          unit: 'holds/s',
          ...(withConsumers && !hot ? { target: { op: '>=' as const, value: 10_000 } } : {}),
        });
      }
    } finally {
      await bench.close();
    }
  }
  printFigures(figures);
  console.log('(a shared 2-core machine: figures are noisy, compare runs on a quiet machine only)');
  return figures;
}

async function openBench(withConsumers: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-bench-holds-'));
  const { wallets, consumers, close } = await openEmbeddedWallets(dataDir, { readModels: withConsumers });
  const ids = await fundedWallets(wallets, context, {
    count: WALLETS,
    amount: 100_000_000 * USDC,
    prefix: 'holds',
  });
  await consumers.drain('sandbox');
  return {
    wallets,
    ids,
    async close() {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let run = 0;

/** `callers` loops placing holds for DURATION_MS, the n-th hold of all on `walletFor(n)`; holds per second. */
async function holds(
  wallets: WalletsService,
  callers: number,
  walletFor: (n: number) => string,
): Promise<number> {
  const prefix = `aut-${++run}`;
  let placed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() - started < DURATION_MS) {
        const n = placed++;
        await wallets.placeHold(context, walletFor(n), { holdId: `${prefix}-${n}`, amount: 1_234_567 });
      }
    }),
  );
  return (placed / (performance.now() - started)) * 1000;
}

// Run alone: `node tools/build.mjs && node dist/tools/bench/ledger-holds-bench.js`.
if (require.main === module) {
  ledgerHoldsBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('Benchmark crashed:', error);
      process.exit(1);
    },
  );
}
