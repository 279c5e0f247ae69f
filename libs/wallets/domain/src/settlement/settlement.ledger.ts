import { DomainError, type Decider } from '@cip/shared/contracts';
import {
  PlannedSettlementBatch,
  SettlementCut,
  SettlementDeferral,
  SettlementLedgerEvent,
  settlementLedgerEvents,
  SettlementWaitReason,
  SettlementWalletTotals,
} from './settlement.events';

// ---------------------------------------------------------------------------------------------------
// The settlement ledger: per program (distributor), the log position up to which its items are claimed
// (its watermark) and its batch in flight. Positions are the event store's global positions, strictly
// increasing in commit order, so "the program's items after its watermark, up to the head read before the
// scan" is a fixed set: every item lands in exactly one claimed range.
// ---------------------------------------------------------------------------------------------------

export interface OpenSettlementBatch {
  batchId: string;
  fromPosition: number;
  throughPosition: number;
}

export interface SettlementProgram {
  /** Items at positions above it are not claimed yet. */
  watermark: number;
  open: OpenSettlementBatch | null;
}

export interface SettlementLedgerState {
  /**
   * Every program absent from `programs` has no unclaimed item at or below this position: its
   * watermark is this. A program the ledger tracks has its own (lower while its items wait).
   */
  scannedThrough: number;
  programs: ReadonlyMap<string, SettlementProgram>;
}

export const watermarkOf = (state: SettlementLedgerState, distributorId: string): number =>
  state.programs.get(distributorId)?.watermark ?? state.scannedThrough;

/** Where a scan must start so that it sees every unclaimed item of every program. */
export const scanStartOf = (state: SettlementLedgerState): number =>
  Math.min(state.scannedThrough, ...[...state.programs.values()].map((program) => program.watermark));

export const openSettlementBatches = (
  state: SettlementLedgerState,
): (OpenSettlementBatch & {
  distributorId: string;
})[] =>
  [...state.programs.entries()]
    .filter(([, program]) => program.open !== null)
    .map(([distributorId, program]) => ({ distributorId, ...(program.open as OpenSettlementBatch) }));

export type CutSettlementBatches = {
  type: 'CutSettlementBatches';
  data: { scannedThrough: number; cuts: SettlementCut[]; deferred: SettlementDeferral[]; now: string };
};

export type CloseSettlementBatch = {
  type: 'CloseSettlementBatch';
  data: { batchId: string; distributorId: string; outcome: 'confirmed' | 'failed'; now: string };
};

export type SettlementLedgerCommand = CutSettlementBatches | CloseSettlementBatch;

/** How far past the ledger's scanned position a run without cuts must have read to record its position. */
export const SCAN_CHECKPOINT_EVENTS = 10_000;

/** Whether deferring these programs (and forgetting the idle ones) changes the ledger's programs. */
function changesPrograms(state: SettlementLedgerState, deferred: SettlementDeferral[]): boolean {
  const idle = [...state.programs.entries()].filter(([, program]) => program.open === null);
  if (idle.length !== deferred.length) return true;
  return deferred.some(
    (deferral) => state.programs.get(deferral.distributorId)?.watermark !== deferral.fromPosition,
  );
}

function cutBatches({ data }: CutSettlementBatches, state: SettlementLedgerState): SettlementLedgerEvent[] {
  if (data.scannedThrough < state.scannedThrough)
    throw new DomainError(
      'concurrency_conflict',
      'The settlement ledger has been scanned further since this plan',
    );
  for (const cut of data.cuts) {
    const program = state.programs.get(cut.distributorId);
    if (program?.open)
      throw new DomainError('concurrency_conflict', `Program ${cut.distributorId} has a batch in flight`);
    if (
      cut.fromPosition !== watermarkOf(state, cut.distributorId) ||
      cut.throughPosition !== data.scannedThrough
    )
      throw new DomainError(
        'concurrency_conflict',
        `Batch ${cut.batchId} does not start at its program's watermark`,
      );
    if (!Number.isSafeInteger(cut.amount) || cut.amount <= 0)
      throw new DomainError('validation_error', `Batch ${cut.batchId} must send a positive amount`);
  }
  for (const deferral of data.deferred)
    if (deferral.fromPosition !== watermarkOf(state, deferral.distributorId))
      throw new DomainError(
        'concurrency_conflict',
        `Program ${deferral.distributorId}'s waiting items do not start at its watermark`,
      );
  if (data.cuts.length === 0 && !changesPrograms(state, data.deferred)) {
    // Nothing claimed and no program changes: recording the scanned position only saves rescanning it,
    // worth an event once the scan has gone far enough.
    if (data.scannedThrough - state.scannedThrough < SCAN_CHECKPOINT_EVENTS) return [];
  }
  return [
    {
      type: 'SettlementBatchesCut',
      data: { scannedThrough: data.scannedThrough, cuts: data.cuts, deferred: data.deferred, at: data.now },
    },
  ];
}

function closeBatch({ data }: CloseSettlementBatch, state: SettlementLedgerState): SettlementLedgerEvent[] {
  // Closing again (a retry after a crash) changes nothing.
  if (state.programs.get(data.distributorId)?.open?.batchId !== data.batchId) return [];
  const { now, ...closed } = data;
  return [{ type: 'SettlementBatchClosed', data: { ...closed, at: now } }];
}

function evolveLedger(state: SettlementLedgerState, event: SettlementLedgerEvent): SettlementLedgerState {
  const programs = new Map(state.programs);
  switch (event.type) {
    case 'SettlementBatchesCut': {
      // A program with nothing in flight and nothing waiting has no unclaimed item up to the scanned
      // position: it needs no watermark of its own (the ledger's is its), which keeps the map small.
      for (const [distributorId, program] of state.programs)
        if (program.open === null) programs.delete(distributorId);
      for (const deferral of event.data.deferred)
        programs.set(deferral.distributorId, { watermark: deferral.fromPosition, open: null });
      for (const { batchId, distributorId, fromPosition, throughPosition } of event.data.cuts)
        programs.set(distributorId, {
          watermark: throughPosition,
          open: { batchId, fromPosition, throughPosition },
        });
      return { scannedThrough: Math.max(state.scannedThrough, event.data.scannedThrough), programs };
    }
    case 'SettlementBatchClosed': {
      const program = programs.get(event.data.distributorId);
      if (!program?.open || program.open.batchId !== event.data.batchId) return state;
      const watermark = event.data.outcome === 'failed' ? program.open.fromPosition : program.watermark;
      programs.set(event.data.distributorId, { watermark, open: null });
      return { ...state, programs };
    }
    default: {
      const unknown: never = event;
      throw new Error(`Unknown settlement ledger event ${(unknown as { type: string }).type}`);
    }
  }
}

export const settlementLedgerDecider: Decider<
  SettlementLedgerCommand,
  SettlementLedgerEvent,
  SettlementLedgerState
> = {
  initialState: () => ({ scannedThrough: 0, programs: new Map() }),
  evolve: evolveLedger,
  decide(command, state) {
    switch (command.type) {
      case 'CutSettlementBatches':
        return cutBatches(command, state);
      case 'CloseSettlementBatch':
        return closeBatch(command, state);
      default: {
        const unknown: never = command;
        throw new Error(`Unknown settlement ledger command ${(unknown as { type: string }).type}`);
      }
    }
  },
  events: settlementLedgerEvents,
};

// ---------------------------------------------------------------------------------------------------
// Planning a run: which program's unclaimed items become a batch now, and which wait (and why)
// ---------------------------------------------------------------------------------------------------

/** A posting that moves money between the cardholder and the card network (read from a wallet stream). */
export interface SettlementItem {
  /** Global log position of the posting. */
  position: number;
  distributorId: string;
  walletId: string;
  userId: string;
  /** `settlement`: a debit (clearing, force post); `refund`: a credit. */
  kind: 'settlement' | 'refund';
  amount: number;
}

export interface SettlementPlan {
  scannedThrough: number;
  batches: PlannedSettlementBatch[];
  /** The programs whose items wait (not for a batch in flight), from their watermark on. */
  deferred: SettlementDeferral[];
  /** Every program whose unclaimed items wait after this run: for logs and metrics. */
  waiting: { distributorId: string; reason: SettlementWaitReason; items: number; amount: number }[];
}

/**
 * Plans a run on the ledger `state` from the settlement items of the log scanned up to `scannedThrough`
 * (items at or below a program's watermark are already claimed and ignored). A program's unclaimed items
 * become one batch sending their net amount to its settlement address, unless it has none, its batch in
 * flight is not confirmed, or its refunds cover its spending (the credit then carries over).
 */
export function planSettlement(input: {
  state: SettlementLedgerState;
  items: Iterable<SettlementItem>;
  scannedThrough: number;
  settlementAddressOf: (distributorId: string) => string | null;
}): SettlementPlan {
  const { state } = input;
  const byProgram = new Map<string, Map<string, SettlementWalletTotals>>();
  for (const item of input.items) {
    if (item.position <= watermarkOf(state, item.distributorId) || item.position > input.scannedThrough)
      continue;
    let wallets = byProgram.get(item.distributorId);
    if (!wallets) byProgram.set(item.distributorId, (wallets = new Map()));
    let totals = wallets.get(item.walletId);
    if (!totals)
      wallets.set(
        item.walletId,
        (totals = { walletId: item.walletId, userId: item.userId, settled: 0, refunded: 0, items: 0 }),
      );
    if (item.kind === 'settlement') totals.settled += item.amount;
    else totals.refunded += item.amount;
    totals.items++;
  }
  const plan: SettlementPlan = {
    scannedThrough: input.scannedThrough,
    batches: [],
    deferred: [],
    waiting: [],
  };
  for (const [distributorId, wallets] of [...byProgram.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const totals = [...wallets.values()].sort((a, b) => a.walletId.localeCompare(b.walletId));
    const settled = totals.reduce((sum, wallet) => sum + wallet.settled, 0);
    const refunded = totals.reduce((sum, wallet) => sum + wallet.refunded, 0);
    const items = totals.reduce((sum, wallet) => sum + wallet.items, 0);
    const amount = settled - refunded;
    const fromPosition = watermarkOf(state, distributorId);
    const settlementAddress = input.settlementAddressOf(distributorId);
    const reason: SettlementWaitReason | null = state.programs.get(distributorId)?.open
      ? 'batch_in_flight'
      : settlementAddress === null
        ? 'no_settlement_address'
        : amount <= 0
          ? 'net_not_positive'
          : null;
    if (reason !== null) {
      plan.waiting.push({ distributorId, reason, items, amount });
      if (reason !== 'batch_in_flight') plan.deferred.push({ distributorId, fromPosition, reason });
      continue;
    }
    plan.batches.push({
      distributorId,
      settlementAddress: settlementAddress as string,
      fromPosition,
      throughPosition: input.scannedThrough,
      amount,
      settled,
      refunded,
      items,
      wallets: totals,
    });
  }
  return plan;
}
