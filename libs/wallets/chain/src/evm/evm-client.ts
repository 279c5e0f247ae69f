import { createPublicClient, defineChain, http, type Chain, type PublicClient } from 'viem';

/** Connection settings shared by the EVM adapters. */
export interface EvmConnection {
  /** HTTP JSON-RPC endpoint of an EVM node. */
  rpcUrl: string;
  /** Chain id the node must report; deposits and payouts name the chain `evm:<chainId>`. */
  chainId: number;
  /** How long one JSON-RPC request may take before it fails (default 10 s). */
  rpcTimeoutMs?: number;
}

/** The chain name carried on wallets, deposits and payouts for an EVM chain id, e.g. `evm:31337`. */
export function evmChainName(chainId: number): string {
  return `evm:${chainId}`;
}

export function evmChain(connection: EvmConnection): Chain {
  return defineChain({
    id: connection.chainId,
    name: evmChainName(connection.chainId),
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [connection.rpcUrl] } },
  });
}

export function evmPublicClient(connection: EvmConnection, pollingIntervalMs: number): PublicClient {
  return createPublicClient({
    chain: evmChain(connection),
    // The adapters retry on their own schedule (next poll, next send); one quick transport retry absorbs a
    // dropped connection without stretching a poll.
    transport: http(connection.rpcUrl, { timeout: connection.rpcTimeoutMs ?? 10_000, retryCount: 1 }),
    pollingInterval: pollingIntervalMs,
  });
}

/** Fails when the node serves another chain than configured: crediting or paying on the wrong chain is worse than stopping. */
export async function assertChainId(client: PublicClient, expected: number): Promise<void> {
  const actual = await client.getChainId();
  if (actual !== expected)
    throw new Error(`RPC node serves chain ${actual}, configured for chain ${expected}`);
}
