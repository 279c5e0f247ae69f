import { foldEvents } from '@cip/shared/contracts';
import { projectionReadModel, verifyProjections } from '@cip/shared/infrastructure';
import { killMidRun } from '@cip/shared/testing';
import type { LedgerContext } from '@cip/wallets/contract';
import { AuthorizationHold, walletDecider, walletEvents, WalletRecord } from '@cip/wallets/domain';
import { WalletView, walletsProjection } from '@cip/wallets/read-models';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedWallets } from './embedded-wallets';
import { walletTransactionsReadModel } from './wallet-transactions.read-model';

/** The storm script as the e2e project's global setup built it into dist/. */
const STORM = join(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'dist/libs/wallets/service/src/testing/hold-storm.child.js',
);
const context: LedgerContext = { environment: 'sandbox', distributorId: 'dst-storm' };
const USDC = 1_000_000;

describe('durability: kill -9 in the middle of a storm of holds on one wallet', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-crash-holds-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged hold and clearing after a restart, and the wallet read model equals a rebuild from the log', async () => {
    const storm = spawn(process.execPath, [STORM, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = storm;
    let walletId = '';
    const holds = new Set<string>();
    const clearings = new Map<string, string>();
    await killMidRun(
      storm,
      (line) => {
        const [what, id, clearingId] = line.split(' ');
        if (what === 'ready') walletId = id;
        if (what === 'hold') holds.add(id);
        if (what === 'clear') clearings.set(id, clearingId);
        return holds.size >= 300;
      },
      { what: '300 acknowledged holds to kill the storm on', timeoutMs: 30_000 },
    );
    expect(storm.signalCode).toBe('SIGKILL');
    expect(clearings.size).toBeGreaterThan(0);

    // Restart on the same directory: the read models catch up with what the log holds.
    const restarted = await openEmbeddedWallets(dataDir, { pollIntervalMs: 20 });
    try {
      const store = restarted.infrastructure.scope('sandbox').eventStore;
      const recorded = await store.readStream(walletId);
      const wallet = foldEvents(
        walletDecider,
        recorded.map((event) => walletEvents.read(event)),
      ) as WalletRecord;
      // Every acknowledged hold is there, and every acknowledged clearing on it.
      const missing = [...holds].filter((holdId) => !wallet.holds.has(holdId));
      expect(missing).toEqual([]);
      const unclearedAcks = [...clearings].filter(
        ([holdId, clearingId]) =>
          !(wallet.holds.get(holdId) as AuthorizationHold | undefined)?.postingIds.includes(clearingId),
      );
      expect(unclearedAcks).toEqual([]);
      // Each hold of the log recorded once, and the ledger is the sum of its movements: 10 USDC per hold,
      // 3 USDC debited per clearing.
      const placed = recorded.filter((e) => e.type === 'WalletHoldPlaced').length;
      const cleared = recorded.filter((e) => e.type === 'WalletHoldSettled').length;
      expect(wallet.holds.size).toBe(placed);
      expect(wallet.balance).toBe(100_000 * USDC - 3 * USDC * cleared);
      expect(wallet.held).toBe(10 * USDC * placed - 3 * USDC * cleared);

      // A retried command after the restart changes nothing; a new one appends on the recovered revision.
      const retried = await restarted.wallets.placeHold(context, walletId, {
        holdId: [...holds][0],
        amount: 10 * USDC,
      });
      expect([retried.balance, retried.held]).toEqual([wallet.balance, wallet.held]);
      const after = await restarted.wallets.placeHold(context, walletId, {
        holdId: 'aut-after',
        amount: USDC,
      });
      expect(after.held).toBe(wallet.held + USDC);

      await restarted.consumers.drain('sandbox');
      const differences = await verifyProjections(restarted.infrastructure.scope('sandbox'), [
        projectionReadModel(walletsProjection),
        walletTransactionsReadModel,
      ]);
      expect(differences.filter((d) => d.missing.length + d.extra.length + d.different.length > 0)).toEqual(
        [],
      );
      const view = await restarted.infrastructure
        .scope('sandbox')
        .readStore.get<WalletView>(walletsProjection.collection, walletId);
      expect(view).toMatchObject({ balance: after.balance / USDC, pendingHolds: after.held / USDC });
    } finally {
      await restarted.close();
    }
  }, 60_000);
});
