import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// On-chain settlement of cleared card payments (README "Settlement"). Two kinds of streams per
// environment:
// - the settlement ledger, one stream (`stl-ledger`): which part of the log each program's batches cover.
//   A cut claims, per program, every settlement item (clearing, force post, refund on a wallet) between
//   the program's watermark and a log position, in one append at the revision it was planned on: two runs
//   at once cannot claim an item twice, and the ranges of one program never overlap.
// - one stream per batch (`stb-<uuid>`): its content, the signed transfer journaled before broadcast, and
//   its outcome. Amounts are integers of USDC minor units.
// ---------------------------------------------------------------------------------------------------

/** The settlement ledger's stream in every environment's store. */
export const SETTLEMENT_LEDGER_STREAM = 'stl-ledger';
/** The stream category of settlement batches (and of their public Events' mapper). */
export const SETTLEMENT_BATCH_CATEGORY = 'stb';

/** Why a program's items were not cut into a batch on a run: they wait for a later one. */
export type SettlementWaitReason =
  /** No settlement address is configured for the program. */
  | 'no_settlement_address'
  /** Refunds cover what was spent: nothing to send (the credit carries over to the next batch). */
  | 'net_not_positive'
  /** The program's previous batch is not confirmed yet (one batch in flight per program). */
  | 'batch_in_flight';

/** One program's batch as the ledger claims it: the log positions (fromPosition, throughPosition]. */
export interface SettlementCut {
  batchId: string;
  distributorId: string;
  fromPosition: number;
  throughPosition: number;
  /** The net amount transferred. */
  amount: number;
}

/** A program whose items wait (no address, or refunds cover the spending): from `fromPosition` on. */
export interface SettlementDeferral {
  distributorId: string;
  fromPosition: number;
  reason: Exclude<SettlementWaitReason, 'batch_in_flight'>;
}

/**
 * A run of the batcher: the log was scanned up to `scannedThrough`; each cut claims its program's items up
 * to its `throughPosition` (the same position); deferred programs keep their watermark (their items wait);
 * every other program without a batch in flight has nothing unclaimed up to `scannedThrough`.
 */
export type SettlementBatchesCut = DomainEvent<
  'SettlementBatchesCut',
  { scannedThrough: number; cuts: SettlementCut[]; deferred: SettlementDeferral[]; at: string }
>;

/**
 * A batch's outcome: confirmed (its items are settled) or failed (nothing moved on chain: the program's
 * watermark goes back to the batch's start, and its items go into the next batch).
 */
export type SettlementBatchClosed = DomainEvent<
  'SettlementBatchClosed',
  { batchId: string; distributorId: string; outcome: 'confirmed' | 'failed'; at: string }
>;

export type SettlementLedgerEvent = SettlementBatchesCut | SettlementBatchClosed;

/** A wallet's part of a batch: what its cardholder spent (clearings, force posts) and got back (refunds). */
export interface SettlementWalletTotals {
  walletId: string;
  userId: string;
  /** Debits: cleared amounts and force posts. */
  settled: number;
  /** Credits: refunds. */
  refunded: number;
  /** How many postings. */
  items: number;
}

/** What a cut plans for one program: the batch's content (a type, not an interface: event data is a record). */
export type PlannedSettlementBatch = {
  distributorId: string;
  settlementAddress: string;
  fromPosition: number;
  throughPosition: number;
  /** `settled - refunded`: what the one transfer sends; always above 0. */
  amount: number;
  settled: number;
  refunded: number;
  items: number;
  wallets: SettlementWalletTotals[];
};

/** A batch's content, recorded before its cut is claimed (an unclaimed batch is never paid). */
export type SettlementBatchOpened = DomainEvent<
  'SettlementBatchOpened',
  { batchId: string } & PlannedSettlementBatch & { at: string }
>;

/**
 * The batch's transfer was signed, recorded before it is broadcast (the payout journal): a retry after a
 * crash sends these same bytes again. A later one replaces it only when its nonce was used by something else
 * (it can then never be mined). Internal: the raw transaction reaches no read model and no public Event.
 */
export type SettlementTransferSigned = DomainEvent<
  'SettlementTransferSigned',
  { batchId: string; toAddress: string; amount: number; hash: string; rawTransaction: string; at: string }
>;

/** The node refused the signed transfer for good: a re-send answers `reason` and broadcasts nothing. */
export type SettlementTransferRefused = DomainEvent<
  'SettlementTransferRefused',
  { batchId: string; hash: string; reason: string; at: string }
>;

/** The transfer is mined: every item of the batch is settled (one public Event per wallet and type). */
export type SettlementBatchConfirmed = DomainEvent<
  'SettlementBatchConfirmed',
  {
    batchId: string;
    amount: number;
    transactionHash: string;
    blockNumber: number;
    wallets: SettlementWalletTotals[];
    at: string;
  }
>;

/** No money moved (refused, or reverted on chain): the batch's items go back to the program's pool. */
export type SettlementBatchFailed = DomainEvent<
  'SettlementBatchFailed',
  { batchId: string; reason: string; transactionHash: string | null; at: string }
>;

export type SettlementBatchEvent =
  | SettlementBatchOpened
  | SettlementTransferSigned
  | SettlementTransferRefused
  | SettlementBatchConfirmed
  | SettlementBatchFailed;

/** How the settlement streams are read (no upcaster yet: every event is in its first shape). */
export const settlementLedgerEvents = domainEventReader<SettlementLedgerEvent>();
export const settlementBatchEvents = domainEventReader<SettlementBatchEvent>();
