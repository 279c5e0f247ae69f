import ganache from 'ganache';
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  keccak256,
  toHex,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { evmChain, evmChainName } from '../evm/evm-client';
import { TEST_USDC_ABI, TEST_USDC_BYTECODE } from './test-usdc.artifact';

export const LOCAL_CHAIN_ID = 31337;
/** 1,000,000,000 USDC in minor units (6 decimals), all minted to the funder. */
const DEFAULT_SUPPLY_MINOR = 1_000_000_000n * 1_000_000n;
/** 1,000 ETH per account, so gas never runs out unless a test wants it to. */
const ACCOUNT_WEI = 1_000n * 10n ** 18n;

export interface LocalChainOptions {
  /** Funded accounts besides the funder (default 3); all hold ETH, none holds USDC. */
  accounts?: number;
  tokenSupplyMinor?: bigint;
}

export interface TokenTransfer {
  to: string;
  amountMinor: bigint;
}

export interface MinedTransaction {
  hash: Hash;
  blockNumber: number;
  blockHash: Hash;
}

/**
 * An in-process ganache chain (chain id 31337, mines each transaction at once) with a 6-decimal test USDC
 * deployed and minted to {@link LocalChain.funder}. For integration tests, the platform e2e and benches.
 */
export interface LocalChain {
  readonly rpcUrl: string;
  readonly chainId: number;
  /** `evm:31337`, as the adapters name this chain. */
  readonly chain: string;
  readonly tokenAddress: Address;
  /** Holds the whole token supply and ETH. */
  readonly funder: PrivateKeyAccount;
  /** Hold ETH and no tokens: hot wallets and senders for tests. */
  readonly accounts: PrivateKeyAccount[];
  readonly client: PublicClient;
  /** Sends one token transfer and resolves once it is mined (ganache mines it in its own block). */
  transfer(to: string, amountMinor: bigint, from?: PrivateKeyAccount): Promise<MinedTransaction>;
  /** Several transfers in one transaction: one block, one `Transfer` log each, in order. */
  transferBatch(transfers: TokenTransfer[], from?: PrivateKeyAccount): Promise<MinedTransaction>;
  /** Signs a transfer without sending it, to broadcast the very same transaction again after a reorg. */
  signTransfer(to: string, amountMinor: bigint, from?: PrivateKeyAccount): Promise<Hex>;
  sendRawTransaction(raw: Hex): Promise<MinedTransaction>;
  tokenBalance(address: string): Promise<bigint>;
  headBlock(): Promise<number>;
  /** Mines empty blocks (each adds one confirmation to everything before it). */
  mine(blocks?: number): Promise<void>;
  /** Remembers the chain's state; {@link revert} drops every block mined since, as a reorg would. */
  snapshot(): Promise<string>;
  revert(snapshotId: string): Promise<void>;
  stop(): Promise<void>;
}

/** Deterministic keys, so addresses are stable across runs (and readable in failure messages). */
export function localChainKey(label: string): Hex {
  return keccak256(toHex(`cip-local-chain:${label}`));
}

export async function startLocalChain(options: LocalChainOptions = {}): Promise<LocalChain> {
  const keys = [localChainKey('funder')];
  for (let i = 0; i < (options.accounts ?? 3); i++) keys.push(localChainKey(`account-${i}`));
  const [funder, ...accounts] = keys.map((key) => privateKeyToAccount(key));
  const server = ganache.server({
    chain: { chainId: LOCAL_CHAIN_ID, hardfork: 'shanghai' },
    miner: { instamine: 'eager' },
    logging: { quiet: true },
    wallet: {
      accounts: keys.map((secretKey) => ({ secretKey, balance: toHex(ACCOUNT_WEI) })),
    },
  });
  await server.listen(0, '127.0.0.1');
  const rpcUrl = `http://127.0.0.1:${server.address().port}`;
  const chain = evmChain({ rpcUrl, chainId: LOCAL_CHAIN_ID });
  // viem's 10 s default fails a test whose jest worker shares a loaded machine; the tests bound their own waits.
  const transport = http(rpcUrl, { timeout: 60_000 });
  const client = createPublicClient({ chain, transport, pollingInterval: 20 });
  const wallet = createWalletClient({ chain, transport });
  const rpc = (method: string, params: unknown[] = []) =>
    client.request({ method, params } as never) as Promise<unknown>;

  const mined = async (hash: Hash): Promise<MinedTransaction> => {
    // Eager instamine returns the hash only after the block is mined, so the receipt is already there.
    const receipt = await client.getTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return { hash, blockNumber: Number(receipt.blockNumber), blockHash: receipt.blockHash };
  };

  const deployHash = await wallet.deployContract({
    account: funder,
    abi: TEST_USDC_ABI,
    bytecode: TEST_USDC_BYTECODE,
    args: [funder.address, options.tokenSupplyMinor ?? DEFAULT_SUPPLY_MINOR],
  });
  const tokenAddress = (await client.getTransactionReceipt({ hash: deployHash })).contractAddress!;

  return {
    rpcUrl,
    chainId: LOCAL_CHAIN_ID,
    chain: evmChainName(LOCAL_CHAIN_ID),
    tokenAddress,
    funder,
    accounts,
    client,
    async transfer(to, amountMinor, from = funder) {
      return mined(
        await wallet.writeContract({
          account: from,
          address: tokenAddress,
          abi: TEST_USDC_ABI,
          functionName: 'transfer',
          args: [to as Address, amountMinor],
        }),
      );
    },
    async transferBatch(transfers, from = funder) {
      return mined(
        await wallet.writeContract({
          account: from,
          address: tokenAddress,
          abi: TEST_USDC_ABI,
          functionName: 'transferBatch',
          args: [transfers.map((t) => t.to as Address), transfers.map((t) => t.amountMinor)],
        }),
      );
    },
    async signTransfer(to, amountMinor, from = funder) {
      const request = await wallet.prepareTransactionRequest({
        account: from,
        to: tokenAddress,
        data: encodeTransfer(to, amountMinor),
      });
      return wallet.signTransaction(request);
    },
    async sendRawTransaction(raw) {
      return mined(await client.sendRawTransaction({ serializedTransaction: raw }));
    },
    tokenBalance(address) {
      return client.readContract({
        address: tokenAddress,
        abi: TEST_USDC_ABI,
        functionName: 'balanceOf',
        args: [address as Address],
      });
    },
    async headBlock() {
      return Number(await client.getBlockNumber({ cacheTime: 0 }));
    },
    async mine(blocks = 1) {
      await rpc('evm_mine', [{ blocks }]);
    },
    async snapshot() {
      return (await rpc('evm_snapshot')) as string;
    },
    async revert(snapshotId) {
      if (!(await rpc('evm_revert', [snapshotId]))) throw new Error(`no snapshot ${snapshotId} to revert to`);
    },
    stop: () => server.close(),
  };
}

function encodeTransfer(to: string, amountMinor: bigint): Hex {
  return encodeFunctionData({
    abi: TEST_USDC_ABI,
    functionName: 'transfer',
    args: [to as Address, amountMinor],
  });
}
