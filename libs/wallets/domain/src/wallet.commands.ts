// ---------------------------------------------------------------------------------------------------
// Commands of the wallet decider. Time (`now`) and ids arrive in the command; amounts are positive
// integers of USDC minor units. Every command carrying an id (hold, deposit, refund, fee, withdrawal) is
// idempotent on that id, so sagas and watchers may deliver it again.
// ---------------------------------------------------------------------------------------------------

export interface CreateWallet {
  type: 'CreateWallet';
  data: {
    walletId: string;
    userId: string;
    distributorId: string;
    depositAddress: string;
    addressIndex: number;
    chain: string;
    now: string;
  };
}

export interface RecordProvisioningFailure {
  type: 'RecordProvisioningFailure';
  data: { walletId: string; userId: string; distributorId: string; reason: string; now: string };
}

export interface CreditDeposit {
  type: 'CreditDeposit';
  data: {
    depositId: string;
    amount: number;
    transactionHash: string;
    logIndex: number;
    blockNumber: number;
    fromAddress: string | null;
    source: 'chain' | 'simulation';
    /**
     * The deposit's transaction is already recorded (the service looked it up by its deterministic id):
     * a deposit credited longer ago than the wallet's window of recent ids is still credited once.
     */
    alreadyRecorded?: boolean;
    now: string;
  };
}

/** Records a confirmed transfer the ledger cannot take (see WalletDepositRefused), once per `depositId`. */
export interface RefuseDeposit {
  type: 'RefuseDeposit';
  data: {
    depositId: string;
    amountMinor: string;
    transactionHash: string;
    logIndex: number;
    blockNumber: number;
    fromAddress: string | null;
    reason: 'amount_too_large';
    now: string;
  };
}

/**
 * Reserves funds for a card authorization. Refused above the available balance unless the command
 * allows it: `overdraftAllowance` (minor units the authorization context tolerates beyond the available
 * balance, e.g. for tips) or `force` (an offline transaction the network already approved).
 */
export interface PlaceHold {
  type: 'PlaceHold';
  data: {
    holdId: string;
    amount: number;
    reference?: string;
    /** The card of a card movement. */
    cardId?: string;
    overdraftAllowance?: number;
    force?: boolean;
    now: string;
  };
}

/**
 * Releases a hold (a reversal): all that it still holds when `amount` is absent (the hold closes), else
 * `amount` of it (closing it when nothing remains held), once per `reversalId` (default: the hold id).
 */
export interface ReleaseHold {
  type: 'ReleaseHold';
  data: { holdId: string; amount?: number; reversalId?: string; now: string };
}

/**
 * Clears `amount` of a hold, once per `clearingId` (default: the hold id). A final clearing (the
 * default) releases what remains held and closes the hold; `final: false` keeps the rest held for later
 * clearings. The hold's clearings together may exceed its authorized amount (net of reversals) by at
 * most `overdraftAllowance` (default 0: the program's tip tolerance, given by the caller).
 */
export interface SettleHold {
  type: 'SettleHold';
  data: {
    holdId: string;
    amount: number;
    clearingId?: string;
    final?: boolean;
    overdraftAllowance?: number;
    now: string;
  };
}

/** Releases what an uncleared hold still holds when its window lapses (the authorizations decide when). */
export interface ExpireHold {
  type: 'ExpireHold';
  data: { holdId: string; now: string };
}

/** A clearing without an authorization: debited whatever the balance, once per `postingId`. */
export interface ForcePost {
  type: 'ForcePost';
  data: { postingId: string; amount: number; reference?: string; cardId?: string; now: string };
}

export interface Refund {
  type: 'Refund';
  data: { refundId: string; amount: number; reference?: string; cardId?: string; now: string };
}

export interface ChargeFee {
  type: 'ChargeFee';
  data: { feeId: string; amount: number; reference?: string; cardId?: string; now: string };
}

export interface RequestWithdrawal {
  type: 'RequestWithdrawal';
  data: { withdrawalId: string; amount: number; toAddress: string; now: string };
}

export interface ConfirmWithdrawal {
  type: 'ConfirmWithdrawal';
  data: { withdrawalId: string; hash: string; blockHeight: number; rawTxReceipt: string; now: string };
}

export interface RejectWithdrawal {
  type: 'RejectWithdrawal';
  data: { withdrawalId: string; reason: string; hash: string | null; now: string };
}

/**
 * Records the signed payout of a pending withdrawal (insert or replace), before it is broadcast; it must
 * match the withdrawal's amount and destination. `refusedReason` marks it refused by the node for good.
 * Recording the same entry again changes nothing.
 */
export interface JournalPayout {
  type: 'JournalPayout';
  data: {
    withdrawalId: string;
    toAddress: string;
    amount: number;
    hash: string;
    rawTransaction: string;
    refusedReason: string | null;
    now: string;
  };
}

/** Operator commands (compliance, spec part 1 facts 5 and 7): a held wallet cannot spend or withdraw. */
export interface PlaceComplianceHold {
  type: 'PlaceComplianceHold';
  data: { reason: string; now: string };
}

export interface ReleaseComplianceHold {
  type: 'ReleaseComplianceHold';
  data: { reason: string; now: string };
}

export type WalletCommand =
  | CreateWallet
  | RecordProvisioningFailure
  | CreditDeposit
  | RefuseDeposit
  | PlaceHold
  | ReleaseHold
  | SettleHold
  | ExpireHold
  | ForcePost
  | Refund
  | ChargeFee
  | RequestWithdrawal
  | ConfirmWithdrawal
  | RejectWithdrawal
  | JournalPayout
  | PlaceComplianceHold
  | ReleaseComplianceHold;
