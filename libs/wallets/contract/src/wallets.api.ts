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
  cardId?: string;
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
// Operators (the CLI's `wallets hold/release`, the backoffice): on any distributor's wallet
// ---------------------------------------------------------------------------------------------------

export interface WalletComplianceApi {
  /**
   * Places (`on`) or releases a compliance hold: spending and withdrawals are refused
   * (`409 wallet_compliance_hold`) until it is released. `404 not_found` for an unknown wallet.
   */
  setComplianceHold(
    environment: Environment,
    walletId: string,
    on: boolean,
    reason: string,
  ): Promise<WalletView>;
}

export const WALLET_COMPLIANCE_API = Symbol('WALLET_COMPLIANCE_API');

export const walletComplianceContract = defineContext<WalletComplianceApi>({
  name: 'wallets.compliance',
  token: WALLET_COMPLIANCE_API,
  methods: { setComplianceHold: ['environment', 'walletId', 'on', 'reason'] },
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
  /**
   * After a command on a hold (settle, release, expire; place too): the hold's figures while it is open,
   * null once it is closed. Absent after other commands.
   */
  hold?: LedgerHold | null;
}

/** An open authorization hold, in minor units. */
export interface LedgerHold {
  holdId: string;
  /** The amount it was placed for. */
  authorized: number;
  /** The sum of its clearings so far. */
  cleared: number;
  /** The sum of its partial reversals so far. */
  released: number;
  /** What it still holds. */
  held: number;
}

/**
 * A clearing of a hold (see `WalletLedger.settleHold`). Without options: one final clearing under the
 * hold's id, with no tolerance above the hold.
 */
export interface SettleHoldOptions {
  /** The clearing's id, unique on the wallet: a retry with it changes nothing. */
  clearingId: string;
  /**
   * Default true: the last clearing, which releases whatever the hold still holds and closes it. false:
   * a partial clearing; the rest stays held for later clearings.
   */
  final?: boolean;
  /**
   * Minor units by which the hold's clearings together may exceed its authorized amount (net of its
   * reversals): the program's tolerance for tips. Default 0.
   */
  overdraftAllowance?: number;
}

/** A reversal of a hold (see `WalletLedger.releaseHold`). Without options: a full reversal under the hold's id. */
export interface ReleaseHoldOptions {
  /** The reversal's id, unique on the wallet: a retry with it changes nothing. */
  reversalId: string;
  /** Minor units to release; absent: all the hold still holds (a full reversal). */
  amount?: number;
}

/** A clearing without an authorization (see `WalletLedger.forcePost`). */
/** The card a card movement was made with (`GET /v1/transactions?cardId=`). */
export interface CardMovement {
  cardId?: string;
}

export interface ForcePostInput extends CardMovement {
  postingId: string;
  amount: number;
  reference?: string;
}

export interface PlaceHoldInput extends CardMovement {
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
  /**
   * Reserves `amount`: refused with `insufficient_funds` (422) above the available balance plus
   * `overdraftAllowance`, and with `wallet_compliance_hold` (409) on a held wallet, unless `force`.
   */
  placeHold(context: LedgerContext, walletId: string, input: PlaceHoldInput): Promise<LedgerBalance>;
  /**
   * A reversal, full (no options, or no `amount`) or partial, once per `reversalId`. More than the hold
   * still holds: `amount_exceeds_hold` (422). A reversal the wallet has not seen on a closed hold:
   * `invalid_state_transition` (409).
   */
  releaseHold(
    context: LedgerContext,
    walletId: string,
    holdId: string,
    options?: ReleaseHoldOptions,
  ): Promise<LedgerBalance>;
  /**
   * A clearing of `amount`, final (releasing the rest) or partial (`final: false`), once per
   * `clearingId`; beyond the authorized amount plus `overdraftAllowance`: `amount_exceeds_hold` (422).
   * A clearing the wallet has not seen on a closed hold: `invalid_state_transition` (409) (post it with
   * `forcePost`).
   */
  settleHold(
    context: LedgerContext,
    walletId: string,
    holdId: string,
    amount: number,
    options?: SettleHoldOptions,
  ): Promise<LedgerBalance>;
  /**
   * Releases what an uncleared hold still holds when the program's window lapses (the caller decides
   * when); recorded as a release with reason `expiry`. An expiry of a closed hold changes nothing.
   */
  expireHold(context: LedgerContext, walletId: string, holdId: string): Promise<LedgerBalance>;
  /** A clearing without an authorization: debited whatever the balance, once per `postingId`. */
  forcePost(context: LedgerContext, walletId: string, input: ForcePostInput): Promise<LedgerBalance>;
  refund(
    context: LedgerContext,
    walletId: string,
    input: { refundId: string; amount: number; reference?: string } & CardMovement,
  ): Promise<LedgerBalance>;
  chargeFee(
    context: LedgerContext,
    walletId: string,
    input: { feeId: string; amount: number; reference?: string } & CardMovement,
  ): Promise<LedgerBalance>;
}

export const WALLET_LEDGER = Symbol('WALLET_LEDGER');

export const walletLedgerContract = defineContext<WalletLedger>({
  name: 'wallets.ledger',
  token: WALLET_LEDGER,
  methods: {
    placeHold: ['context', 'walletId', 'input'],
    releaseHold: ['context', 'walletId', 'holdId', 'options'],
    settleHold: ['context', 'walletId', 'holdId', 'amount', 'options'],
    expireHold: ['context', 'walletId', 'holdId'],
    forcePost: ['context', 'walletId', 'input'],
    refund: ['context', 'walletId', 'input'],
    chargeFee: ['context', 'walletId', 'input'],
  },
});
