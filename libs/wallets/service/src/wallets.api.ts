import type { Environment } from '@cip/shared/contracts';
import type { FindQuery, FindResult } from '@cip/shared/read-store';
import type { TransactionRecord, WalletView } from '@cip/wallets/read-models';

/** The caller of a wallets query or command over the API: tenant, program and request id. */
export interface WalletsCaller {
  distributorId: string;
  environment: Environment;
  /** Request id: becomes the events' correlation id. */
  requestId: string;
  program: { prepaid: boolean };
}

export interface WalletListFilter {
  userId?: string;
}

export interface TransactionListFilter {
  walletId?: string;
  userId?: string;
  type?: string;
  status?: string;
}

/** Amounts are integers of USDC minor units (the gateway converts and validates API numbers). */
export interface WithdrawalInput {
  amount: number;
  toAddress: string;
}

/**
 * What the gateway can ask of the wallets context. The embedded runtime binds it to WalletsService in the
 * same process.
 */
export interface WalletsApi {
  getWallet(caller: WalletsCaller, walletId: string): Promise<WalletView>;
  listWallets(
    caller: WalletsCaller,
    filter: WalletListFilter,
    page: Omit<FindQuery, 'filter'>,
  ): Promise<FindResult<WalletView>>;
  listTransactions(
    caller: WalletsCaller,
    filter: TransactionListFilter,
    page: Omit<FindQuery, 'filter'>,
  ): Promise<FindResult<TransactionRecord>>;
  getTransaction(caller: WalletsCaller, transactionId: string): Promise<TransactionRecord>;
  /** Prepaid programs only; holds the amount and pays it out through the payout port. */
  requestWithdrawal(
    caller: WalletsCaller,
    walletId: string,
    input: WithdrawalInput,
  ): Promise<TransactionRecord>;
  /** Sandbox: credits the wallet as if a USDC transfer to its deposit address had confirmed. */
  simulateDeposit(caller: WalletsCaller, walletId: string, amount: number): Promise<TransactionRecord>;
}

export const WALLETS_API = Symbol('WALLETS_API');

/**
 * Who a ledger command comes from when another context (card authorizations) or a saga posts it. The
 * distributor must be the wallet's: it becomes the events' metadata, which read models filter tenants by.
 */
export interface LedgerContext {
  environment: Environment;
  distributorId: string;
  correlationId?: string;
  causationId?: string;
}

/** A wallet's ledger after a command, in minor units. */
export interface LedgerBalance {
  walletId: string;
  balance: number;
  held: number;
  available: number;
}

export interface PlaceHoldInput {
  holdId: string;
  amount: number;
  reference?: string;
  /** Minor units tolerated beyond the available balance (tips, authorizations slightly above it). */
  overdraftAllowance?: number;
  /** An offline transaction the network already approved: recorded whatever the balance. */
  force?: boolean;
}

/**
 * The ledger commands the card-authorization context will call (through a port of its own, wired by the
 * app). Each is idempotent on its id and runs with optimistic concurrency on the wallet stream, so
 * concurrent spends never see the same available balance twice.
 */
export interface WalletLedger {
  placeHold(context: LedgerContext, walletId: string, input: PlaceHoldInput): Promise<LedgerBalance>;
  releaseHold(context: LedgerContext, walletId: string, holdId: string): Promise<LedgerBalance>;
  settleHold(
    context: LedgerContext,
    walletId: string,
    holdId: string,
    amount: number,
  ): Promise<LedgerBalance>;
  refund(
    context: LedgerContext,
    walletId: string,
    input: { refundId: string; amount: number; reference?: string },
  ): Promise<LedgerBalance>;
  chargeFee(
    context: LedgerContext,
    walletId: string,
    input: { feeId: string; amount: number; reference?: string },
  ): Promise<LedgerBalance>;
}
