/**
 * The wallets context's view of the blockchain: where deposit addresses come from, how confirmed USDC
 * transfers reach the ledger, and how withdrawals are paid out. The wallets service depends only on these
 * ports; the EVM adapters (JSON-RPC via viem) and the sandbox adapters implement them, and only apps choose.
 * Amounts are integers of the token's minor units (USDC: 6 decimals), as bigint.
 */

/** Deterministic deposit addresses from a per-environment HD seed (BIP-32 / BIP-44 path m/44'/60'/0'/0/i). */
export interface DepositAddressDeriver {
  /** Chain name carried on wallets, e.g. `evm:31337` or `sandbox`. */
  readonly chain: string;
  /** The checksummed address at a non-negative index; the same seed and index always give the same address. */
  addressAt(index: number): string;
}

/** An ERC-20 `Transfer` of the funding token to one of the platform's deposit addresses. */
export interface ObservedDeposit {
  chain: string;
  /** Checksummed recipient address (a deposit address). */
  depositAddress: string;
  fromAddress: string;
  transactionHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  amountMinor: bigint;
}

/** Where the deposit watcher hands transfers it has seen reach the required confirmations. */
export interface DepositSink {
  /** Whether an address (checksummed) is a deposit address of this environment. */
  isDepositAddress(address: string): Promise<boolean>;
  /**
   * Credits a deposit whose block has the required confirmations. Called at least once per transfer
   * (again after a restart from an older checkpoint); the sink credits it exactly once, keyed by
   * `transactionHash` + `logIndex`.
   */
  credit(deposit: ObservedDeposit): Promise<void>;
}

/** Durable position of a watcher: the last block whose transfers were all handed to the sink. */
export interface WatcherCheckpoint {
  load(): Promise<number | null>;
  save(blockNumber: number): Promise<void>;
}

export interface DepositWatcher {
  /** Starts polling the chain; deposits reach the sink once confirmed. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Scans once up to the current head (tests and benchmarks wait on this instead of sleeping). */
  pollOnce(): Promise<void>;
}

export interface PayoutRequest {
  /** The withdrawal's id; a payout is sent at most once per id (re-sends broadcast the same signed tx). */
  withdrawalId: string;
  toAddress: string;
  amountMinor: bigint;
}

export type PayoutResult =
  | { status: 'confirmed'; hash: string; blockHeight: number; rawTxReceipt: string }
  | { status: 'rejected'; reason: string; hash: string | null };

/** Sends withdrawals from the platform's hot wallet (prepaid programs only). */
export interface PayoutPort {
  readonly chain: string;
  send(request: PayoutRequest): Promise<PayoutResult>;
}

/**
 * A payout signed for a withdrawal, recorded before it is broadcast. Its hash is known from the signed
 * bytes, so a retry after a crash finds the same transaction on chain (or broadcasts it again) instead of
 * signing a second payment.
 */
export interface JournaledPayout {
  withdrawalId: string;
  toAddress: string;
  amountMinor: bigint;
  /** Hash of the signed transaction. */
  hash: string;
  /** The signed raw transaction (0x-prefixed hex), broadcast again as is on a retry. */
  rawTransaction: string;
  /** Set when the node refused the transaction for good; a re-send answers this again and broadcasts nothing. */
  rejectedReason?: string;
}

/**
 * Durable record of signed payouts, one per withdrawal, kept by the wallets service (e.g. as an event on
 * the withdrawal's stream). `save` must resolve only once the entry is durable: it runs before broadcast.
 */
export interface PayoutJournal {
  find(withdrawalId: string): Promise<JournaledPayout | null>;
  /** Inserts or replaces the withdrawal's entry. */
  save(entry: JournaledPayout): Promise<void>;
}
