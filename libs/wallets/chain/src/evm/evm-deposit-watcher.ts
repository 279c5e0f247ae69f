import type { Logger } from '@cip/shared/runtime';
import {
  BlockNotFoundError,
  getAddress,
  parseAbiItem,
  type Address,
  type GetLogsReturnType,
  type PublicClient,
} from 'viem';
import type { DepositSink, DepositWatcher, ObservedDeposit, WatcherCheckpoint } from '../chain.ports';
import { assertChainId, evmChainName, evmPublicClient, type EvmConnection } from './evm-client';
import { SerialQueue } from './serial-queue';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
type TransferLog = GetLogsReturnType<typeof TRANSFER, [typeof TRANSFER], true>[number];

export interface EvmDepositWatcherConfig extends EvmConnection {
  /** The ERC-20 funding token (USDC) whose `Transfer` logs are deposits. */
  tokenAddress: string;
  /** A block's transfers are credited once it has this many confirmations (1 = the head block itself). */
  confirmations: number;
  pollIntervalMs: number;
  /** Widest block range asked of `eth_getLogs` at once (providers cap it, often at 1,000 to 10,000). */
  maxBlockRange: number;
  /**
   * First block scanned when there is no checkpoint yet. Default: the first block not yet confirmed when
   * the watcher first polls, as deposit addresses handed out later cannot have older transfers.
   */
  startBlock?: number;
}

/**
 * Polls an EVM node over JSON-RPC for `Transfer` logs of the funding token and hands those to deposit
 * addresses to the sink, block by block, once confirmed.
 *
 * Delivery is at least once: the checkpoint moves only after every transfer up to it was credited, so a
 * crash re-delivers from the last checkpoint and the sink dedupes by hash + log index. Reorgs shallower
 * than the confirmation depth never reach the sink: only blocks with the required confirmations (counted
 * from a head read after the logs) are credited, and each block's hash is checked to be canonical right
 * before its transfers are credited; a transfer re-mined elsewhere is found by a later poll. Logs are asked
 * for a range only once the node serves the range's last block: a node may report a head before its logs
 * can be queried, and a log query answered too early would let the checkpoint pass a transfer for good.
 *
 * Recipients are filtered here through `sink.isDepositAddress` rather than in the log query: the sink
 * answers one address at a time, and a topic filter listing every deposit address would outgrow what
 * providers accept as the user base grows, while the token's own transfers are bounded per block range.
 */
export class EvmDepositWatcher implements DepositWatcher {
  readonly chain: string;
  private readonly client: PublicClient;
  private readonly token: Address;
  private readonly polls = new SerialQueue();
  /** Last block whose transfers were all credited; null until the checkpoint is loaded. */
  private scannedThrough: number | null = null;
  private chainVerified = false;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private failedPolls = 0;

  constructor(
    private readonly config: EvmDepositWatcherConfig,
    private readonly sink: DepositSink,
    private readonly checkpoint: WatcherCheckpoint,
    private readonly logger: Logger,
  ) {
    if (!Number.isInteger(config.confirmations) || config.confirmations < 1)
      throw new Error(`confirmations must be an integer >= 1, got ${config.confirmations}`);
    if (!Number.isInteger(config.maxBlockRange) || config.maxBlockRange < 1)
      throw new Error(`maxBlockRange must be an integer >= 1, got ${config.maxBlockRange}`);
    this.chain = evmChainName(config.chainId);
    this.client = evmPublicClient(config, config.pollIntervalMs);
    this.token = getAddress(config.tokenAddress);
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.logger.info(
      { chain: this.chain, token: this.token, confirmations: this.config.confirmations },
      'deposit watcher started',
    );
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.polls.idle();
  }

  /** Polls are serialised: a poll asked for while one runs starts after it, from where it ended. */
  pollOnce(): Promise<void> {
    return this.polls.run(() => this.scan());
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(async () => {
      try {
        await this.pollOnce();
        if (this.failedPolls) this.logger.info({ chain: this.chain }, 'deposit watcher recovered');
        this.failedPolls = 0;
      } catch (error) {
        // The next poll starts again from the checkpoint: nothing is lost, so the watcher keeps going.
        this.failedPolls++;
        this.logger.error(
          { chain: this.chain, err: error, failedPolls: this.failedPolls },
          'deposit poll failed; retrying on the next poll',
        );
      }
      if (this.running) this.schedule(this.config.pollIntervalMs);
    }, delayMs);
  }

  private async scan(): Promise<void> {
    if (!this.chainVerified) {
      await assertChainId(this.client, this.config.chainId);
      this.chainVerified = true;
    }
    const confirmedHead = this.confirmedBlock(await this.headBlock());
    let scannedThrough = this.scannedThrough ?? (await this.loadCheckpoint(confirmedHead));
    while (scannedThrough < confirmedHead) {
      const from = scannedThrough + 1;
      const to = Math.min(from + this.config.maxBlockRange - 1, confirmedHead);
      // A head number is no promise that the node already answers log queries up to that block: ganache
      // moves its head before it stores the block with its receipts and logs (one batch), so a log query in
      // between comes back without the block's transfers, and the checkpoint would pass them for good. The
      // logs of a range are asked only once the node serves its last block; until then the next poll retries.
      if ((await this.blockHashAt(to)) === null) return;
      const logs = await this.client.getLogs({
        address: this.token,
        event: TRANSFER,
        fromBlock: BigInt(from),
        toBlock: BigInt(to),
        strict: true,
      });
      // A reorg since the head was read may have shortened the chain: keep only blocks the current head
      // still confirms, so a checkpoint never passes a block that could yet change.
      const safeTo = Math.min(to, this.confirmedBlock(await this.headBlock()));
      if (safeTo < from) return;
      const credited = await this.creditBlocks(await this.depositsIn(logs, safeTo));
      if (credited !== true) {
        // A block left the canonical chain while this poll ran: keep what came before it, rescan the rest.
        if (credited > scannedThrough) await this.saveCheckpoint(credited);
        return;
      }
      await this.saveCheckpoint(safeTo);
      scannedThrough = safeTo;
      if (safeTo < to) return;
    }
  }

  private async headBlock(): Promise<number> {
    // viem caches the block number for a polling interval by default; a stale head would undercount reorgs.
    return Number(await this.client.getBlockNumber({ cacheTime: 0 }));
  }

  private confirmedBlock(head: number): number {
    return head - this.config.confirmations + 1;
  }

  private async loadCheckpoint(confirmedHead: number): Promise<number> {
    const saved = await this.checkpoint.load();
    if (saved !== null) return (this.scannedThrough = saved);
    // First start: persist the starting point at once, so a restart cannot skip the blocks mined meanwhile.
    const start = this.config.startBlock ?? Math.max(confirmedHead + 1, 0);
    await this.saveCheckpoint(start - 1);
    return start - 1;
  }

  private async saveCheckpoint(block: number): Promise<void> {
    await this.checkpoint.save(block);
    this.scannedThrough = block;
  }

  /** The transfers to deposit addresses among `logs`, in chain order, up to `lastBlock`. */
  private async depositsIn(logs: TransferLog[], lastBlock: number): Promise<ObservedDeposit[]> {
    const known = new Map<string, boolean>();
    const deposits: ObservedDeposit[] = [];
    for (const log of logs) {
      if (log.removed || Number(log.blockNumber) > lastBlock) continue;
      const { from, to, value } = log.args;
      if (!known.has(to)) known.set(to, await this.sink.isDepositAddress(to));
      if (!known.get(to)) continue;
      deposits.push({
        chain: this.chain,
        depositAddress: to,
        fromAddress: from,
        transactionHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: Number(log.blockNumber),
        blockHash: log.blockHash,
        amountMinor: value,
      });
    }
    return deposits.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  }

  /**
   * Credits deposits block by block, checking each block is still canonical first. Returns true when all
   * were credited, or the last block fully handled before one that was reorged away.
   */
  private async creditBlocks(deposits: ObservedDeposit[]): Promise<true | number> {
    for (let i = 0; i < deposits.length;) {
      const { blockNumber, blockHash } = deposits[i];
      if (!(await this.isCanonical(blockNumber, blockHash))) {
        this.logger.warn(
          { chain: this.chain, blockNumber, blockHash },
          'block reorged away before crediting',
        );
        return blockNumber - 1;
      }
      for (; i < deposits.length && deposits[i].blockNumber === blockNumber; i++) {
        const deposit = deposits[i];
        await this.sink.credit(deposit);
        this.logger.info(
          {
            chain: this.chain,
            depositAddress: deposit.depositAddress,
            transactionHash: deposit.transactionHash,
            logIndex: deposit.logIndex,
            blockNumber,
            amountMinor: deposit.amountMinor.toString(),
          },
          'deposit credited',
        );
      }
    }
    return true;
  }

  private async isCanonical(blockNumber: number, blockHash: string): Promise<boolean> {
    return (await this.blockHashAt(blockNumber)) === blockHash;
  }

  /** The hash of the node's block at a height; null when the node has no such block (yet, or any more). */
  private async blockHashAt(blockNumber: number): Promise<string | null> {
    try {
      return (await this.client.getBlock({ blockNumber: BigInt(blockNumber) })).hash;
    } catch (error) {
      if (error instanceof BlockNotFoundError) return null;
      throw error;
    }
  }
}
