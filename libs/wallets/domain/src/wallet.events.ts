import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// Domain events of a wallet stream (`wlt-<uuid>`). Amounts are integers of USDC minor units. Every event
// that moves money carries the ledger after it (`balance`, `held`), computed once by the decider, so that
// read models and public Events copy figures instead of redoing the arithmetic.
// ---------------------------------------------------------------------------------------------------

/** The wallet's ledger after an event: the balance and the sum of its open holds. */
export type LedgerFigures = {
  balance: number;
  held: number;
};

/** Carried by every money movement so that its consumers need no lookup of the owner. */
type LedgerEntry = LedgerFigures & { walletId: string; userId: string };

/** What a hold reserves funds for: a card authorization (placed by the authorization context) or a withdrawal. */
export type HoldKind = 'authorization' | 'withdrawal';

export type WalletCreated = DomainEvent<
  'WalletCreated',
  {
    walletId: string;
    userId: string;
    distributorId: string;
    depositAddress: string;
    addressIndex: number;
    chain: string;
    currency: 'USDC';
    createdAt: string;
  }
>;

export type WalletProvisioningFailed = DomainEvent<
  'WalletProvisioningFailed',
  { walletId: string; userId: string; distributorId: string; reason: string; at: string }
>;

export type WalletDepositCredited = DomainEvent<
  'WalletDepositCredited',
  LedgerEntry & {
    /** `<transactionHash>:<logIndex>`: a transfer is credited once whatever the number of deliveries. */
    depositId: string;
    amount: number;
    transactionHash: string;
    logIndex: number;
    blockNumber: number;
    fromAddress: string | null;
    source: 'chain' | 'simulation';
    at: string;
  }
>;

/**
 * A confirmed transfer to the wallet's deposit address that the ledger cannot take (it would pass the
 * largest amount a ledger figure may hold): recorded once, so operators see it and settle it off the
 * ledger, and so the deposit watcher moves on instead of retrying it forever. No money is posted.
 */
export type WalletDepositRefused = DomainEvent<
  'WalletDepositRefused',
  {
    walletId: string;
    depositId: string;
    /** Minor units as a decimal string: the amount may be beyond what a ledger number holds. */
    amountMinor: string;
    transactionHash: string;
    logIndex: number;
    blockNumber: number;
    fromAddress: string | null;
    reason: 'amount_too_large';
    at: string;
  }
>;

export type WalletHoldPlaced = DomainEvent<
  'WalletHoldPlaced',
  LedgerEntry & {
    holdId: string;
    amount: number;
    kind: 'authorization';
    reference: string | null;
    /** Placed beyond the available balance as the command allowed (offline, forced, tolerance). */
    overdraft: boolean;
    at: string;
  }
>;

export type WalletHoldReleased = DomainEvent<
  'WalletHoldReleased',
  LedgerEntry & { holdId: string; amount: number; at: string }
>;

/** The held amount is freed and `amount` (which may exceed it) is debited. */
export type WalletHoldSettled = DomainEvent<
  'WalletHoldSettled',
  LedgerEntry & { holdId: string; heldAmount: number; amount: number; at: string }
>;

export type WalletRefunded = DomainEvent<
  'WalletRefunded',
  LedgerEntry & { refundId: string; amount: number; reference: string | null; at: string }
>;

export type WalletFeeCharged = DomainEvent<
  'WalletFeeCharged',
  LedgerEntry & { feeId: string; amount: number; reference: string | null; at: string }
>;

/** A withdrawal is accepted: its amount is held until the payout confirms or is rejected. */
export type WithdrawalRequested = DomainEvent<
  'WithdrawalRequested',
  LedgerEntry & { withdrawalId: string; amount: number; toAddress: string; at: string }
>;

export type WithdrawalConfirmed = DomainEvent<
  'WithdrawalConfirmed',
  LedgerEntry & {
    withdrawalId: string;
    amount: number;
    hash: string;
    blockHeight: number;
    rawTxReceipt: string;
    at: string;
  }
>;

export type WithdrawalRejected = DomainEvent<
  'WithdrawalRejected',
  LedgerEntry & {
    withdrawalId: string;
    amount: number;
    reason: string;
    hash: string | null;
    at: string;
  }
>;

/**
 * The payout of a pending withdrawal was signed, recorded before it is broadcast (the payout journal): a
 * retry after a crash sends these same bytes again instead of signing a second payment. A later one for
 * the same withdrawal replaces it (its nonce was used by nothing else and the transaction can never be
 * mined). Internal bookkeeping: the raw transaction goes to no read model and no public Event.
 */
export type WithdrawalPayoutSigned = DomainEvent<
  'WithdrawalPayoutSigned',
  {
    walletId: string;
    withdrawalId: string;
    toAddress: string;
    amount: number;
    hash: string;
    rawTransaction: string;
    at: string;
  }
>;

/** The node refused the signed payout for good: a re-send answers `reason` and broadcasts nothing. */
export type WithdrawalPayoutRefused = DomainEvent<
  'WithdrawalPayoutRefused',
  { walletId: string; withdrawalId: string; hash: string; reason: string; at: string }
>;

export type WalletComplianceHoldPlaced = DomainEvent<
  'WalletComplianceHoldPlaced',
  { walletId: string; reason: string; at: string }
>;

export type WalletComplianceHoldReleased = DomainEvent<
  'WalletComplianceHoldReleased',
  { walletId: string; reason: string; at: string }
>;

export type WalletLedgerEvent =
  | WalletDepositCredited
  | WalletHoldPlaced
  | WalletHoldReleased
  | WalletHoldSettled
  | WalletRefunded
  | WalletFeeCharged
  | WithdrawalRequested
  | WithdrawalConfirmed
  | WithdrawalRejected;

export type WalletEvent =
  | WalletCreated
  | WalletProvisioningFailed
  | WalletLedgerEvent
  | WithdrawalPayoutSigned
  | WithdrawalPayoutRefused
  | WalletDepositRefused
  | WalletComplianceHoldPlaced
  | WalletComplianceHoldReleased;

const LEDGER_EVENT_TYPES: ReadonlySet<string> = new Set<WalletLedgerEvent['type']>([
  'WalletDepositCredited',
  'WalletHoldPlaced',
  'WalletHoldReleased',
  'WalletHoldSettled',
  'WalletRefunded',
  'WalletFeeCharged',
  'WithdrawalRequested',
  'WithdrawalConfirmed',
  'WithdrawalRejected',
]);

/** Whether an event changes the balance or the holds (and so carries the ledger figures). */
export const isLedgerEvent = (event: WalletEvent): event is WalletLedgerEvent =>
  LEDGER_EVENT_TYPES.has(event.type);

/** How wallet streams are read (no upcaster yet: every event is still in its first shape). */
export const walletEvents = domainEventReader<WalletEvent>();
