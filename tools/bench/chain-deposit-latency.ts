import { measureDepositLatency } from '@cip/wallets/chain/testing';
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
  printFigures(figures);
  return figures;
}

if (require.main === module) {
  chainDepositLatencyBench().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
