import { createLogger } from '@cip/shared/runtime';
import { within } from '@cip/shared/testing';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { EvmDepositWatcher } from '../evm/evm-deposit-watcher';
import { InMemoryDepositSink, InMemoryWatcherCheckpoint } from './in-memory-ports';
import { startLocalChain, type LocalChain } from './local-chain';

export interface DepositLatencyOptions {
  /** Deposits measured, one after another (default 50). */
  transfers?: number;
  confirmations?: number;
  pollIntervalMs?: number;
  /** A chain to reuse; by default one is started and stopped. */
  chain?: LocalChain;
}

export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface DepositLatency {
  samples: number;
  /** From sending the transfer to the sink being asked to credit it. */
  transferToCredit: LatencySummary;
  /** From the transfer's block (and its confirmations) being mined to the credit: the watcher's own share. */
  confirmedToCredit: LatencySummary;
}

/**
 * Runs the EVM deposit watcher against a local chain with an in-memory sink and times each deposit from
 * transfer to credit. Deposits go one at a time, so each waits for a poll on its own.
 */
export async function measureDepositLatency(options: DepositLatencyOptions = {}): Promise<DepositLatency> {
  const { transfers = 50, confirmations = 1, pollIntervalMs = 50 } = options;
  const chain = options.chain ?? (await startLocalChain());
  const sink = new InMemoryDepositSink();
  const watcher = new EvmDepositWatcher(
    {
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      tokenAddress: chain.tokenAddress,
      confirmations,
      pollIntervalMs,
      maxBlockRange: 1_000,
    },
    sink,
    new InMemoryWatcherCheckpoint(await chain.headBlock()),
    createLogger('warn'),
  );
  const fromTransfer: number[] = [];
  const fromConfirmed: number[] = [];
  try {
    await watcher.start();
    for (let i = 0; i < transfers; i++) {
      const address = privateKeyToAddress(generatePrivateKey());
      sink.addDepositAddress(address);
      const credited = new Promise<number>((done) => {
        sink.onCredit = () => done(performance.now());
      });
      const sent = performance.now();
      await chain.transfer(address, 1_000_000n);
      if (confirmations > 1) await chain.mine(confirmations - 1);
      const confirmed = performance.now();
      const at = await within(credited, {
        what: `the credit of transfer ${i + 1} of ${transfers} (to ${address})`,
        timeoutMs: 30_000,
      });
      fromTransfer.push(at - sent);
      fromConfirmed.push(at - confirmed);
    }
  } finally {
    await watcher.stop();
    if (!options.chain) await chain.stop();
  }
  return {
    samples: transfers,
    transferToCredit: summary(fromTransfer),
    confirmedToCredit: summary(fromConfirmed),
  };
}

function summary(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  // Nearest rank: the smallest sample with at least p % of the samples at or below it.
  const rank = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
  return { p50Ms: rank(50), p99Ms: rank(99), maxMs: sorted[sorted.length - 1] };
}
