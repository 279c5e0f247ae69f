import type { LedgerContext } from '@cip/wallets/contract';
import { openEmbeddedWallets } from '../embedded-wallets';

// ---------------------------------------------------------------------------------------------------
// A child process for the ledger's kill -9 test (ledger-crash.e2e.spec.ts): opens the wallets context on
// the data directory given, funds one wallet, then places holds through `WalletLedger.placeHold` from
// many concurrent callers, with a partial clearing after every fourth hold, until it is killed. Each
// acknowledged command is reported on stdout once its promise resolved (the append committed):
// `ready <walletId>`, `hold <holdId>`, `clear <holdId> <clearingId>`. No authorizations endpoint exists
// yet, so this script stands in for the platform process the authorizations context will run in.
// ---------------------------------------------------------------------------------------------------

const CALLERS = 32;
const USDC = 1_000_000;
const context: LedgerContext = { environment: 'sandbox', distributorId: 'dst-storm' };

async function main(dataDir: string): Promise<void> {
  const { wallets } = await openEmbeddedWallets(dataDir, { pollIntervalMs: 20 });
  const wallet = await wallets.provisionWallet('sandbox', {
    userId: 'usr-storm',
    distributorId: 'dst-storm',
  });
  await wallets.creditDeposit(context, wallet.id, {
    depositId: '0xstorm:0',
    amount: 100_000 * USDC,
    transactionHash: '0xstorm',
    logIndex: 0,
    blockNumber: 1,
    fromAddress: null,
    source: 'simulation',
  });
  process.stdout.write(`ready ${wallet.id}\n`);
  let next = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      for (;;) {
        const n = next++;
        const holdId = `aut-storm-${n}`;
        await wallets.placeHold(context, wallet.id, { holdId, amount: 10 * USDC });
        process.stdout.write(`hold ${holdId}\n`);
        if (n % 4 === 0) {
          const clearingId = `clr-storm-${n}`;
          await wallets.settleHold(context, wallet.id, holdId, 3 * USDC, { clearingId, final: false });
          process.stdout.write(`clear ${holdId} ${clearingId}\n`);
        }
      }
    }),
  );
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
