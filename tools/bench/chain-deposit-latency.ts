import { startInProcessPlatform } from './in-process-platform';
import { waitFor } from '@cip/shared/testing';
import { UsersService } from '@cip/users/service';
import { localChainKey, measureDepositLatency, startLocalChain } from '@cip/wallets/chain/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printFigures, type Figure } from './append-bench';

const TRANSFERS = 100;
const POLL_INTERVAL_MS = 50;

/** Deposit-to-credit latency of the EVM watcher on an in-process ganache chain (1 confirmation). */
export async function chainDepositLatencyBench(): Promise<Figure[]> {
  console.log(
    `\n== EVM deposit watcher: ${TRANSFERS} USDC transfers on ganache, 1 confirmation, polling every ${POLL_INTERVAL_MS} ms ==`,
  );
  const result = await measureDepositLatency({
    transfers: TRANSFERS,
    confirmations: 1,
    pollIntervalMs: POLL_INTERVAL_MS,
  });
  const figures: Figure[] = [
    { label: 'Deposit transfer -> credit p50', value: result.transferToCredit.p50Ms, unit: 'ms' },
    { label: 'Deposit transfer -> credit p99', value: result.transferToCredit.p99Ms, unit: 'ms' },
    {
      label: 'Deposit mined -> credit p50 (watcher only)',
      value: result.confirmedToCredit.p50Ms,
      unit: 'ms',
    },
    {
      label: 'Deposit mined -> credit p99 (watcher only)',
      value: result.confirmedToCredit.p99Ms,
      unit: 'ms',
    },
  ];
  figures.push(...(await depositToBalanceThroughPlatform()));
  printFigures(figures);
  return figures;
}

const API_KEY = 'sk_sandbox_chainBenchKeyAAAAAAAAAAAAAAAAAAAAAAAAAA';
const PLATFORM_DEPOSITS = 40;

/**
 * The whole path a distributor sees: a USDC transfer on the local chain to a wallet's deposit address, the
 * platform's watcher (1 confirmation, its own 50 ms poll timer), the ledger command, until
 * GET /v1/wallets/{id} shows the new balance. Deposits go one at a time to 10 wallets.
 */
async function depositToBalanceThroughPlatform(): Promise<Figure[]> {
  const chain = await startLocalChain();
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-bench-chain-'));
  const platform = await startInProcessPlatform(
    dataDir,
    API_KEY,
    {
      chains: {
        sandbox: {
          rpcUrl: chain.rpcUrl,
          chainId: chain.chainId,
          usdcContractAddress: chain.tokenAddress,
          confirmations: 1,
          pollIntervalMs: POLL_INTERVAL_MS,
          maxBlockRange: 1_000,
          hotWalletPrivateKey: localChainKey('account-0'),
        },
      },
    },
    'silent',
  );
  try {
    const headers = { 'x-api-key': API_KEY, 'content-type': 'application/json' };
    const api = async (path: string, init: RequestInit = {}) =>
      (await fetch(`${platform.url}/v1${path}`, { ...init, headers })).json() as Promise<
        Record<string, never>
      >;
    const users = platform.app.get(UsersService);
    const caller = {
      distributorId: platform.distributorId,
      environment: 'sandbox' as const,
      requestId: 'bench',
      program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
    };
    const wallets: { id: string; depositAddress: string; expected: number }[] = [];
    for (let i = 0; i < 10; i++) {
      const user = await api('/users', {
        method: 'POST',
        body: JSON.stringify({
          email: `chain-${i}@example.com`,
          firstName: 'C',
          lastName: 'B',
          countryOfResidence: 'FR',
        }),
      });
      await users.changeStatus(caller, user.id, 'active');
      const listed = (await api(`/wallets?userId=${user.id}`)) as unknown as {
        items: { id: string; depositAddress: string }[];
      };
      wallets.push({ ...listed.items[0], expected: 0 });
    }
    const latencies: number[] = [];
    for (let i = 0; i < PLATFORM_DEPOSITS; i++) {
      const wallet = wallets[i % wallets.length];
      const started = performance.now();
      await chain.transfer(wallet.depositAddress, 1_000_000n);
      wallet.expected += 1;
      // Reads the wallet until the deposit shows (each read folds the wallet's stream: read-your-writes).
      await waitFor(
        async () =>
          ((await api(`/wallets/${wallet.id}`)) as unknown as { balance: number }).balance ===
          wallet.expected,
        {
          what: `deposit ${i + 1} of ${PLATFORM_DEPOSITS} to show in the balance of ${wallet.id}`,
          timeoutMs: 30_000,
          intervalMs: 2,
        },
      );
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
    return [
      {
        label: `Deposit transfer -> balance via the platform p50 (${PLATFORM_DEPOSITS} deposits)`,
        value: at(0.5),
        unit: 'ms',
      },
      { label: 'Deposit transfer -> balance via the platform p99', value: at(0.99), unit: 'ms' },
    ];
  } finally {
    await platform.close();
    await chain.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  chainDepositLatencyBench().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
