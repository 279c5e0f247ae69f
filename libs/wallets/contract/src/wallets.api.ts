import {
  Caller,
  defineContext,
  type Environment,
  type FindPage,
  type FindResult,
} from '@cip/shared/contracts';
import type { TransactionRecord } from './transaction';
import type { WalletView } from './wallet-view';

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

// ---------------------------------------------------------------------------------------------------
// Distributors (/v1/wallets, /v1/transactions)
// ---------------------------------------------------------------------------------------------------

export interface WalletsApi {
  getWallet(caller: Caller, walletId: string): Promise<WalletView>;
  listWallets(caller: Caller, filter: WalletListFilter, page: FindPage): Promise<FindResult<WalletView>>;
  /**
   * The user's wallet folded from its stream, so a wallet provisioned just before is seen without waiting
   * for the wallets read model; null when the user has none, or is not the caller's. For other contexts
   * (card issuing checks the wallet on every card), not an endpoint.
   */
  findUserWallet(caller: Caller, userId: string): Promise<WalletView | null>;
  listTransactions(
    caller: Caller,
    filter: TransactionListFilter,
    page: FindPage,
  ): Promise<FindResult<TransactionRecord>>;
  getTransaction(caller: Caller, transactionId: string): Promise<TransactionRecord>;
  /** Prepaid programs only; holds the amount and pays it out through the payout port. */
  requestWithdrawal(caller: Caller, walletId: string, input: WithdrawalInput): Promise<TransactionRecord>;
}

export const WALLETS_API = Symbol('WALLETS_API');

export const walletsContract = defineContext<WalletsApi>({
  name: 'wallets',
  token: WALLETS_API,
  methods: {
    getWallet: ['caller', 'walletId'],
    listWallets: ['caller', 'filter', 'page'],
    findUserWallet: ['caller', 'userId'],
    listTransactions: ['caller', 'filter', 'page'],
    getTransaction: ['caller', 'transactionId'],
    requestWithdrawal: ['caller', 'walletId', 'input'],
  },
});

// ---------------------------------------------------------------------------------------------------
// Sandbox simulations (the simulator service will host these)
// ---------------------------------------------------------------------------------------------------

export interface WalletSimulationApi {
  /** Sandbox: credits the wallet as if a USDC transfer to its deposit address had confirmed. */
  simulateDeposit(caller: Caller, walletId: string, amount: number): Promise<TransactionRecord>;
}

export const WALLET_SIMULATION_API = Symbol('WALLET_SIMULATION_API');

export const walletSimulationContract = defineContext<WalletSimulationApi>({
  name: 'wallets.simulation',
  token: WALLET_SIMULATION_API,
  methods: { simulateDeposit: ['caller', 'walletId', 'amount'] },
});

// ---------------------------------------------------------------------------------------------------
// The ledger, for other contexts (card authorizations: holds on the hot path, clearing, refunds, fees)
// ---------------------------------------------------------------------------------------------------

/**
 * Who a ledger command comes from when another context or a saga posts it: not an API caller but the
 * event that caused it. The distributor must be the wallet's: it becomes the events' metadata, which read
 * models filter tenants by.
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
 * The ledger commands card authorizations call. Each is idempotent on its id and runs with optimistic
 * concurrency on the wallet stream, so concurrent spends never see the same available balance twice.
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

export const WALLET_LEDGER = Symbol('WALLET_LEDGER');

export const walletLedgerContract = defineContext<WalletLedger>({
  name: 'wallets.ledger',
  token: WALLET_LEDGER,
  methods: {
    placeHold: ['context', 'walletId', 'input'],
    releaseHold: ['context', 'walletId', 'holdId'],
    settleHold: ['context', 'walletId', 'holdId', 'amount'],
    refund: ['context', 'walletId', 'input'],
    chargeFee: ['context', 'walletId', 'input'],
  },
});
