import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';
import type { WalletHoldPlacedEvent } from '@cip/wallets/contract';

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
    /** The card the authorization was made with (absent on events recorded before it was kept). */
    cardId?: string;
    /** Placed beyond the available balance as the command allowed (offline, forced, tolerance). */
    overdraft: boolean;
    at: string;
  }
>;

/**
 * `amount` is freed from the hold (a reversal, full or partial, or the expiry of what remains). The hold
 * closes unless `remaining` (what it still holds after) is above 0. Events recorded before partial
 * reversals carry only `holdId`, `amount` and `at`: a full reversal that closed the hold.
 */
export type WalletHoldReleased = DomainEvent<
  'WalletHoldReleased',
  LedgerEntry & {
    holdId: string;
    amount: number;
    /** The reversal's id (the hold id for a full reversal without one); absent on an expiry. */
    reversalId?: string;
    /** Why: a reversal by the network or the merchant, or the expiry of an uncleared hold. */
    reason?: HoldReleaseReason;
    /** What the hold still holds after this release; absent or 0: the hold is closed. */
    remaining?: number;
    /** The sum of the hold's clearings so far (a closed hold with clearings is a completed payment). */
    cleared?: number;
    at: string;
  }
>;

export type HoldReleaseReason = 'reversal' | 'expiry';

/**
 * A clearing of a hold: `amount` (which may exceed what is held, within the caller's tolerance) is
 * debited and `heldAmount` is freed from the hold: on a final clearing everything the hold still held,
 * otherwise the part of the hold this clearing consumed (at most `amount`). A non-final clearing
 * (`final: false`) keeps the hold open with `remaining` held for later clearings. Events recorded
 * before partial clearings carry only `holdId`, `heldAmount`, `amount` and `at`: a final clearing.
 */
export type WalletHoldSettled = DomainEvent<
  'WalletHoldSettled',
  LedgerEntry & {
    holdId: string;
    heldAmount: number;
    amount: number;
    /** The clearing's id (the hold id for a single clearing without one). */
    clearingId?: string;
    /** Absent or true: the hold is closed, its remainder released. */
    final?: boolean;
    /** The sum of the hold's clearings including this one. */
    cleared?: number;
    /** What the hold still holds after this clearing (0 on a final one). */
    remaining?: number;
    at: string;
  }
>;

/**
 * A clearing the network posts without an authorization (a force post): debited whatever the balance
 * (spec part 1, fact 4), once per `postingId`.
 */
export type WalletForcePosted = DomainEvent<
  'WalletForcePosted',
  LedgerEntry & { postingId: string; amount: number; reference: string | null; cardId?: string; at: string }
>;

export type WalletRefunded = DomainEvent<
  'WalletRefunded',
  LedgerEntry & { refundId: string; amount: number; reference: string | null; cardId?: string; at: string }
>;

export type WalletFeeCharged = DomainEvent<
  'WalletFeeCharged',
  LedgerEntry & { feeId: string; amount: number; reference: string | null; cardId?: string; at: string }
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
  | WithdrawalRejected
  | WalletForcePosted;

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
  'WalletForcePosted',
]);

/** Whether an event changes the balance or the holds (and so carries the ledger figures). */
export const isLedgerEvent = (event: WalletEvent): event is WalletLedgerEvent =>
  LEDGER_EVENT_TYPES.has(event.type);

/** How wallet streams are read (no upcaster yet: every event is still in its first shape). */
export const walletEvents = domainEventReader<WalletEvent>();

/**
 * The contract publishes `WalletHoldPlaced` (the authorizations context's unrecorded-hold sweep reads it): its
 * data must stay what the domain writes, or the build fails here rather than in that sweep.
 */
export const PUBLISHED_HOLD_EVENT_MATCHES_THE_CONTRACT: WalletHoldPlaced['data'] extends WalletHoldPlacedEvent['data']
  ? true
  : never = true;
