import type { Environment } from '@cip/shared/contracts';
import {
  categoryOf,
  CommandContext,
  EventStore,
  handleCommand,
  loadState,
  WrongExpectedRevisionError,
} from '@cip/shared/eventing';
import { Clock, newId } from '@cip/shared/runtime';
import type { JournaledPayout, PayoutJournal, PayoutPort } from '@cip/wallets/chain';
import {
  openSettlementBatches,
  planSettlement,
  scanStartOf,
  SETTLEMENT_BATCH_CATEGORY,
  SETTLEMENT_LEDGER_STREAM,
  settlementBatchDecider,
  SettlementBatchState,
  settlementItemOf,
  SettlementItem,
  settlementLedgerDecider,
  SettlementLedgerState,
  SettlementPlan,
  walletEvents,
} from '@cip/wallets/domain';

/**
 * Where a program's cleared amounts go: its settlement address in an environment (checksummed EVM
 * address), or null while it has none (its items wait, they are not lost).
 */
export type SettlementAddressOf = (environment: Environment, distributorId: string) => string | null;

export interface SettlementPorts {
  eventStore(environment: Environment): EventStore;
  /** The environment's payout adapter: the same one (and so the same signer and nonces) as withdrawals. */
  payout(environment: Environment): PayoutPort;
  settlementAddressOf: SettlementAddressOf;
}

/** A batch cut on a run, and what became of it. */
export interface SettlementBatchReport {
  batchId: string;
  distributorId: string;
  /** The net amount transferred: `settled - refunded`. */
  amount: number;
  settled: number;
  refunded: number;
  /** `open`: its transfer is not confirmed yet (the node did not answer): it is retried. */
  outcome: 'confirmed' | 'failed' | 'open';
  transactionHash: string | null;
  blockNumber: number | null;
}

export interface SettlementCutReport {
  environment: Environment;
  /** Another run claimed first: this one cut nothing (its items are in the other run's batches). */
  conflict: boolean;
  scannedThrough: number;
  batches: { batchId: string; distributorId: string; amount: number; items: number }[];
  waiting: SettlementPlan['waiting'];
}

/** How many log events one run reads at most; the rest is for the next run. */
const DEFAULT_SCAN_LIMIT = 1_000_000;
const SCAN_PAGE = 2_000;
/** Closing a batch competes with cuts for the ledger stream: keep trying on the fresh state. */
const LEDGER_ATTEMPTS = 20;

/** Whether a payout id is a settlement batch's (the payout journal is shared with withdrawals). */
export const isSettlementBatchId = (id: string): boolean => categoryOf(id) === SETTLEMENT_BATCH_CATEGORY;

/**
 * Settlement batches of card payments (README "Settlement"): cutting a batch per program from the log,
 * paying it with one transfer journaled before broadcast, and recording the outcome. Runs are serialised by
 * the caller per environment in one process; across processes (the CLI cuts beside the platform) the
 * ledger's expected revision keeps every item in one batch.
 */
export class SettlementBatches {
  private readonly ledgerCaches = new Map<EventStore, { state: SettlementLedgerState; revision: number }>();

  constructor(
    private readonly ports: SettlementPorts,
    private readonly clock: Clock,
    private readonly scanLimit = DEFAULT_SCAN_LIMIT,
  ) {}

  /** The settlement ledger as it is now (read from its newest events on). */
  async ledger(environment: Environment): Promise<{ state: SettlementLedgerState; revision: number }> {
    const store = this.ports.eventStore(environment);
    const loaded = await loadState(
      store,
      settlementLedgerDecider,
      SETTLEMENT_LEDGER_STREAM,
      this.ledgerCaches.get(store),
    );
    this.ledgerCaches.set(store, loaded);
    return loaded;
  }

  /**
   * Cuts a batch for every program with unclaimed items that can be settled now: the batches' content is
   * recorded first, then claimed on the ledger in one append at the revision the plan was made on. A run
   * that loses that race claims nothing (its batches stay unclaimed and are never paid).
   */
  async cut(environment: Environment): Promise<SettlementCutReport> {
    const store = this.ports.eventStore(environment);
    const { state, revision } = await this.ledger(environment);
    const from = scanStartOf(state);
    const head = await store.headPosition();
    const scannedThrough = Math.max(state.scannedThrough, Math.min(head, from + this.scanLimit));
    const plan = planSettlement({
      state,
      items: await this.scan(store, from, scannedThrough),
      scannedThrough,
      settlementAddressOf: (distributorId) => this.ports.settlementAddressOf(environment, distributorId),
    });
    const batches = plan.batches.map((batch) => ({ ...batch, batchId: newId(SETTLEMENT_BATCH_CATEGORY) }));
    for (const batch of batches)
      await handleCommand(
        store,
        settlementBatchDecider,
        batch.batchId,
        { type: 'OpenSettlementBatch', data: { ...batch, now: this.now() } },
        this.context(environment, batch.distributorId, batch.batchId),
        { expectNew: true },
      );
    const report: SettlementCutReport = {
      environment,
      conflict: false,
      scannedThrough,
      batches: batches.map(({ batchId, distributorId, amount, items }) => ({
        batchId,
        distributorId,
        amount,
        items,
      })),
      waiting: plan.waiting,
    };
    try {
      await handleCommand(
        store,
        settlementLedgerDecider,
        SETTLEMENT_LEDGER_STREAM,
        (_, current) => {
          if (current !== revision)
            throw new WrongExpectedRevisionError(SETTLEMENT_LEDGER_STREAM, revision, current);
          return {
            type: 'CutSettlementBatches' as const,
            data: {
              scannedThrough,
              cuts: batches.map(({ batchId, distributorId, fromPosition, throughPosition, amount }) => ({
                batchId,
                distributorId,
                fromPosition,
                throughPosition,
                amount,
              })),
              deferred: plan.deferred,
              now: this.now(),
            },
          };
        },
        this.context(environment, undefined, 'settlement'),
        { expectedRevision: revision < 0 ? 'no_stream' : revision, maxAttempts: 1 },
      );
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      return { ...report, conflict: true, batches: [], waiting: [] };
    }
    return report;
  }

  /** The batches claimed and not closed yet (to pay, or to record the outcome of). */
  async openBatches(environment: Environment): Promise<{ batchId: string; distributorId: string }[]> {
    return openSettlementBatches((await this.ledger(environment)).state);
  }

  /**
   * Pays an open batch (or finds its journaled transfer on chain) and records the outcome, then closes it
   * on the ledger. Run again after a crash it sends the journaled transfer, never a second one. Throws
   * when the chain could not be reached or the receipt did not come in time: the batch stays open.
   */
  async settle(
    environment: Environment,
    batchId: string,
  ): Promise<SettlementBatchReport & { changed: boolean }> {
    const store = this.ports.eventStore(environment);
    let { state } = await loadState(store, settlementBatchDecider, batchId);
    if (state.status === 'absent') throw new Error(`settlement batch ${batchId} does not exist`);
    let changed = false;
    if (state.status === 'open') {
      const result = await this.ports.payout(environment).send({
        withdrawalId: batchId,
        toAddress: state.settlementAddress,
        // Wallet minor units are the token's minor units (USDC, 6 decimals), as for withdrawals.
        amountMinor: BigInt(state.amount),
      });
      const now = this.now();
      const recorded = await handleCommand(
        store,
        settlementBatchDecider,
        batchId,
        result.status === 'confirmed'
          ? {
              type: 'ConfirmSettlementBatch',
              data: { batchId, transactionHash: result.hash, blockNumber: result.blockHeight, now },
            }
          : {
              type: 'FailSettlementBatch',
              data: { batchId, reason: result.reason, transactionHash: result.hash, now },
            },
        this.context(environment, state.distributorId, batchId),
      );
      state = recorded.state;
      changed = recorded.events.length > 0;
    }
    const closed = state as Exclude<SettlementBatchState, { status: 'absent' }>;
    await handleCommand(
      store,
      settlementLedgerDecider,
      SETTLEMENT_LEDGER_STREAM,
      {
        type: 'CloseSettlementBatch',
        data: {
          batchId,
          distributorId: closed.distributorId,
          outcome: closed.status === 'confirmed' ? 'confirmed' : 'failed',
          now: this.now(),
        },
      },
      this.context(environment, closed.distributorId, batchId),
      { maxAttempts: LEDGER_ATTEMPTS },
    );
    return {
      batchId,
      distributorId: closed.distributorId,
      amount: closed.amount,
      settled: closed.settled,
      refunded: closed.refunded,
      outcome: closed.status === 'confirmed' ? 'confirmed' : 'failed',
      transactionHash: closed.transactionHash,
      blockNumber: closed.blockNumber,
      changed,
    };
  }

  /** What a batch holds (the content recorded when it was cut, its transfer and outcome). */
  async batch(environment: Environment, batchId: string): Promise<SettlementBatchState> {
    return (await loadState(this.ports.eventStore(environment), settlementBatchDecider, batchId)).state;
  }

  /**
   * The payout journal of settlement batches, on each batch's stream: an entry is durable once `save`
   * resolves (before broadcast), and `find` returns it only while the batch is open.
   */
  journal(environment: Environment): PayoutJournal {
    return {
      find: async (batchId) => {
        const state = await this.batch(environment, batchId);
        if (state.status !== 'open' || !state.transfer) return null;
        const { hash, rawTransaction, refusedReason } = state.transfer;
        return {
          withdrawalId: batchId,
          toAddress: state.settlementAddress,
          amountMinor: BigInt(state.amount),
          hash,
          rawTransaction,
          ...(refusedReason !== null && { rejectedReason: refusedReason }),
        };
      },
      save: async (entry: JournaledPayout) => {
        const state = await this.batch(environment, entry.withdrawalId);
        await handleCommand(
          this.ports.eventStore(environment),
          settlementBatchDecider,
          entry.withdrawalId,
          {
            type: 'JournalSettlementTransfer',
            data: {
              batchId: entry.withdrawalId,
              toAddress: entry.toAddress,
              amount: Number(entry.amountMinor),
              hash: entry.hash,
              rawTransaction: entry.rawTransaction,
              refusedReason: entry.rejectedReason ?? null,
              now: this.now(),
            },
          },
          this.context(
            environment,
            state.status === 'absent' ? undefined : state.distributorId,
            entry.withdrawalId,
          ),
        );
      },
    };
  }

  /** The settlement items of wallet streams at positions (from, through]. */
  private async scan(store: EventStore, from: number, through: number): Promise<SettlementItem[]> {
    const items: SettlementItem[] = [];
    for (let after = from; after < through;) {
      const page = await store.readAll({ after, maxCount: Math.min(SCAN_PAGE, through - after) });
      if (page.length === 0) break;
      for (const recorded of page) {
        if (recorded.position > through) return items;
        if (categoryOf(recorded.streamId) !== 'wlt') continue;
        const item = settlementItemOf(walletEvents.read(recorded), {
          position: recorded.position,
          distributorId: recorded.metadata.distributorId ?? '',
        });
        if (item) items.push(item);
      }
      after = page[page.length - 1].position;
    }
    return items;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private context(
    environment: Environment,
    distributorId: string | undefined,
    correlationId: string,
  ): CommandContext {
    return {
      occurredAt: this.now(),
      environment,
      distributorId,
      correlationId,
      causationId: correlationId,
    };
  }
}

/**
 * The environment's payout journal, shared by withdrawals and settlement batches (one payout adapter, so one
 * signer and one nonce sequence per hot wallet): each entry is kept on its own stream, routed by its id.
 */
export function routedPayoutJournal(withdrawals: PayoutJournal, settlements: PayoutJournal): PayoutJournal {
  return {
    find: (id) => (isSettlementBatchId(id) ? settlements.find(id) : withdrawals.find(id)),
    save: (entry) =>
      isSettlementBatchId(entry.withdrawalId) ? settlements.save(entry) : withdrawals.save(entry),
  };
}
