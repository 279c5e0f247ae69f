import type { Logger } from '@cip/shared/runtime';
import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  decodeErrorResult,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  http,
  InsufficientFundsError,
  isAddress,
  keccak256,
  parseTransaction,
  stringify,
  TransactionReceiptNotFoundError,
  type Address,
  type Hash,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type TransactionSerializable,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { JournaledPayout, PayoutJournal, PayoutPort, PayoutRequest, PayoutResult } from '../chain.ports';
import { assertChainId, evmChain, evmChainName, evmPublicClient, type EvmConnection } from './evm-client';
import { SerialQueue } from './serial-queue';

export interface EvmPayoutConfig extends EvmConnection {
  /** The ERC-20 token paid out (USDC). */
  tokenAddress: string;
  /** Private key of the hot wallet (0x + 64 hex digits); it pays the tokens and the gas. */
  hotWalletPrivateKey: string;
  /** A payout is confirmed once its block has this many confirmations (default 1). */
  confirmations?: number;
  /** How long `send` waits for the receipt before failing (default 120 s); a retry resumes the wait. */
  receiptTimeoutMs?: number;
  /** How often the receipt is looked for (default 1 s). */
  receiptPollIntervalMs?: number;
}

type Rejected = Extract<PayoutResult, { status: 'rejected' }>;

const rejected = (reason: string, hash: string | null): Rejected => ({ status: 'rejected', reason, hash });

/**
 * Pays withdrawals with ERC-20 `transfer` transactions signed by the hot wallet.
 *
 * At most one payment per withdrawal: the signed transaction is journaled before it is broadcast, and a
 * re-send for the same withdrawal looks up that transaction's receipt or broadcasts the same bytes again.
 * Only when the hot wallet's nonce has moved past it without it being mined (it can then never be mined)
 * is a new transaction signed in its place. Signing and broadcasting are serialised per instance so that
 * nonces do not collide; run one payout instance per hot wallet.
 *
 * Business failures (bad address, too few tokens or too little gas in the hot wallet, a reverting
 * transfer) resolve as `rejected` with a reason; a `hash` is given only when a transaction went on chain.
 * RPC failures and a receipt timeout throw: the withdrawal stays pending, and a retry is safe.
 */
export class EvmPayout implements PayoutPort {
  readonly chain: string;
  readonly hotWalletAddress: Address;
  private readonly client: PublicClient;
  private readonly wallet: WalletClient;
  private readonly account: PrivateKeyAccount;
  private readonly token: Address;
  private readonly broadcasts = new SerialQueue();
  private chainVerified = false;

  constructor(
    private readonly config: EvmPayoutConfig,
    private readonly journal: PayoutJournal,
    private readonly logger: Logger,
  ) {
    this.chain = evmChainName(config.chainId);
    this.account = privateKeyToAccount(config.hotWalletPrivateKey as Hex);
    this.hotWalletAddress = this.account.address;
    this.token = getAddress(config.tokenAddress);
    this.client = evmPublicClient(config, config.receiptPollIntervalMs ?? 1_000);
    this.wallet = createWalletClient({
      account: this.account,
      chain: evmChain(config),
      transport: http(config.rpcUrl, { timeout: config.rpcTimeoutMs ?? 10_000, retryCount: 1 }),
    });
  }

  async send(request: PayoutRequest): Promise<PayoutResult> {
    if (!isAddress(request.toAddress, { strict: false }))
      return rejected(`invalid destination address: ${request.toAddress}`, null);
    if (request.amountMinor <= 0n) return rejected('the amount must be positive', null);
    const sent = await this.broadcasts.run(() => this.broadcastOnce(request));
    if ('status' in sent) {
      this.logger.warn(
        { chain: this.chain, withdrawalId: request.withdrawalId, reason: sent.reason },
        'payout rejected',
      );
      return sent;
    }
    return this.outcome(sent);
  }

  /** The withdrawal's one transaction, broadcast (or already mined), or why there can be none. */
  private async broadcastOnce(request: PayoutRequest): Promise<JournaledPayout | Rejected> {
    if (!this.chainVerified) {
      await assertChainId(this.client, this.config.chainId);
      this.chainVerified = true;
    }
    const journaled = await this.journal.find(request.withdrawalId);
    if (journaled) {
      if (
        getAddress(journaled.toAddress) !== getAddress(request.toAddress) ||
        journaled.amountMinor !== request.amountMinor
      )
        throw new Error(
          `withdrawal ${request.withdrawalId} was already signed for another destination or amount`,
        );
      if (journaled.rejectedReason) return rejected(journaled.rejectedReason, null);
      // A mined payout is not broadcast again: a node should refuse its used nonce, but ganache executes
      // the same signed bytes a second time.
      if (await this.isMined(journaled.hash as Hash)) return journaled;
      const sent = await this.broadcast(journaled);
      if (sent !== 'superseded') return sent;
      this.logger.warn(
        { chain: this.chain, withdrawalId: request.withdrawalId, hash: journaled.hash },
        'journaled payout can no longer be mined (its nonce was used); signing it again',
      );
    }
    const signed = await this.sign(request);
    if ('status' in signed) return signed;
    await this.journal.save(signed);
    const sent = await this.broadcast(signed);
    if (sent === 'superseded')
      throw new Error(`the hot wallet's nonce was used by another sender during payout ${signed.hash}`);
    this.logger.info(
      {
        chain: this.chain,
        withdrawalId: request.withdrawalId,
        hash: signed.hash,
        amountMinor: request.amountMinor.toString(),
      },
      'payout broadcast',
    );
    return sent;
  }

  /** Checks what would make the payout fail for good, then signs it (nothing is sent yet). */
  private async sign(request: PayoutRequest): Promise<JournaledPayout | Rejected> {
    const to = getAddress(request.toAddress);
    const balance = await this.client.readContract({
      address: this.token,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [this.hotWalletAddress],
    });
    if (balance < request.amountMinor)
      return rejected(
        `insufficient hot-wallet token balance: ${balance} minor units available, ${request.amountMinor} needed`,
        null,
      );
    try {
      await this.client.simulateContract({
        account: this.account,
        address: this.token,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to, request.amountMinor],
      });
      const prepared = await this.wallet.prepareTransactionRequest({
        account: this.account,
        chain: this.wallet.chain,
        to: this.token,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'transfer',
          args: [to, request.amountMinor],
        }),
      });
      const maxGasCost = prepared.gas * (prepared.maxFeePerGas ?? prepared.gasPrice ?? 0n);
      const gasFunds = await this.client.getBalance({ address: this.hotWalletAddress });
      if (gasFunds < maxGasCost)
        return rejected(
          `insufficient hot-wallet gas funds: ${gasFunds} wei available, up to ${maxGasCost} wei needed`,
          null,
        );
      const rawTransaction = await this.account.signTransaction(prepared as TransactionSerializable);
      return { ...request, toAddress: to, hash: keccak256(rawTransaction), rawTransaction };
    } catch (error) {
      const failure = businessFailure(error);
      if (failure) return rejected(failure, null);
      throw error;
    }
  }

  /**
   * Hands the signed transaction to the node. `superseded` means the hot wallet's nonce moved past it
   * without mining it, so it can never be mined and a new one may be signed.
   */
  private async broadcast(entry: JournaledPayout): Promise<JournaledPayout | Rejected | 'superseded'> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: entry.rawTransaction as Hex });
      return entry;
    } catch (error) {
      // Whatever the node's wording ("already known", "nonce too low", ...): the chain itself says whether
      // this transaction was mined, is still pending, or lost its nonce to another one.
      const { nonce } = parseTransaction(entry.rawTransaction as Hex);
      const used = await this.client.getTransactionCount({
        address: this.hotWalletAddress,
        blockTag: 'latest',
      });
      if (nonce !== undefined && used > nonce)
        return (await this.isMined(entry.hash as Hash)) ? entry : 'superseded';
      if (error instanceof BaseError && error.walk((e) => e instanceof InsufficientFundsError)) {
        // Refused, so never propagated: record it so that a re-send cannot pay after the withdrawal was rejected.
        const reason = 'the hot wallet cannot pay the gas for this payout';
        await this.journal.save({ ...entry, rejectedReason: reason });
        return rejected(reason, null);
      }
      if (/already known|known transaction|already imported/i.test(errorText(error))) return entry;
      throw error;
    }
  }

  private async isMined(hash: Hash): Promise<boolean> {
    try {
      await this.client.getTransactionReceipt({ hash });
      return true;
    } catch (error) {
      // Only a definite "no receipt" counts: taking a failed lookup for one would sign a second payment.
      if (error instanceof TransactionReceiptNotFoundError) return false;
      throw error;
    }
  }

  private async outcome(entry: JournaledPayout): Promise<PayoutResult> {
    const receipt = await this.client.waitForTransactionReceipt({
      hash: entry.hash as Hash,
      confirmations: this.config.confirmations ?? 1,
      timeout: this.config.receiptTimeoutMs ?? 120_000,
      pollingInterval: this.config.receiptPollIntervalMs ?? 1_000,
    });
    if (receipt.status !== 'success') {
      this.logger.warn(
        { chain: this.chain, withdrawalId: entry.withdrawalId, hash: entry.hash },
        'payout reverted',
      );
      return rejected('the token transfer reverted on chain', entry.hash);
    }
    this.logger.info(
      {
        chain: this.chain,
        withdrawalId: entry.withdrawalId,
        hash: entry.hash,
        blockNumber: Number(receipt.blockNumber),
      },
      'payout confirmed',
    );
    return {
      status: 'confirmed',
      hash: entry.hash,
      blockHeight: Number(receipt.blockNumber),
      rawTxReceipt: stringify(receipt),
    };
  }
}

/** The reason a failed simulation or estimate is final (a revert, no gas funds), or null for an RPC fault. */
function businessFailure(error: unknown): string | null {
  if (!(error instanceof BaseError)) return null;
  const reason = revertReason(error);
  if (reason !== null) return `the token transfer would revert: ${reason}`;
  if (error.walk((e) => e instanceof InsufficientFundsError)) return 'insufficient hot-wallet gas funds';
  return null;
}

function revertReason(error: BaseError): string | null {
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? reverted.shortMessage;
  // Some nodes (ganache among them) answer a revert with a generic error code that viem does not read as
  // one, but still carry the standard Error(string) / Panic(uint256) payload in the error's data.
  const data = (
    error.walk((e) => typeof (e as { data?: unknown }).data === 'string') as { data?: string } | null
  )?.data;
  if (!data?.startsWith('0x')) return null;
  try {
    const { errorName, args } = decodeErrorResult({ abi: [], data: data as Hex });
    return errorName === 'Error' ? String(args[0]) : `${errorName}(${args.join(', ')})`;
  } catch {
    return null;
  }
}

function errorText(error: unknown): string {
  return error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String(error);
}
