import { foldEvents } from '@cip/shared/contracts';
import { deciderSpec } from '@cip/shared/testing';
import type { WalletEvent } from '../wallet.events';
import { settlementBatchDecider, settlementItemOf, settlementNoticesOf } from './settlement.batch';
import type { SettlementBatchEvent, SettlementLedgerEvent } from './settlement.events';
import {
  openSettlementBatches,
  planSettlement,
  SCAN_CHECKPOINT_EVENTS,
  scanStartOf,
  SettlementItem,
  settlementLedgerDecider,
  SettlementLedgerState,
} from './settlement.ledger';

const T0 = '2026-01-01T00:00:00.000Z';
const ADDRESS = '0x38651Ed2FBc13930D11fd4b1d88DDB974908B51F';
const ledger = (events: SettlementLedgerEvent[]): SettlementLedgerState =>
  foldEvents(settlementLedgerDecider, events);
const addressFor =
  (...programs: string[]) =>
  (distributorId: string) =>
    programs.includes(distributorId) ? ADDRESS : null;

let position = 0;
const item = (
  distributorId: string,
  walletId: string,
  kind: SettlementItem['kind'],
  amount: number,
  at = ++position,
): SettlementItem => ({ position: at, distributorId, walletId, userId: `usr-of-${walletId}`, kind, amount });

const cutOf = (
  distributorId: string,
  batchId: string,
  fromPosition: number,
  throughPosition: number,
  amount = 1,
): SettlementLedgerEvent => ({
  type: 'SettlementBatchesCut',
  data: {
    scannedThrough: throughPosition,
    cuts: [{ batchId, distributorId, fromPosition, throughPosition, amount }],
    deferred: [],
    at: T0,
  },
});

describe('planning a settlement run', () => {
  beforeEach(() => (position = 0));

  it("cuts one batch per program with the net of its wallets' clearings, force posts and refunds", () => {
    const items = [
      item('dst-a', 'wlt-1', 'settlement', 2_500_000),
      item('dst-a', 'wlt-1', 'settlement', 1_000_000),
      item('dst-a', 'wlt-2', 'settlement', 700_000),
      item('dst-a', 'wlt-2', 'refund', 200_000),
      item('dst-b', 'wlt-3', 'settlement', 99),
    ];
    const plan = planSettlement({
      state: ledger([]),
      items,
      scannedThrough: 10,
      settlementAddressOf: addressFor('dst-a', 'dst-b'),
    });
    expect(plan.batches).toEqual([
      {
        distributorId: 'dst-a',
        settlementAddress: ADDRESS,
        fromPosition: 0,
        throughPosition: 10,
        amount: 4_000_000,
        settled: 4_200_000,
        refunded: 200_000,
        items: 4,
        wallets: [
          { walletId: 'wlt-1', userId: 'usr-of-wlt-1', settled: 3_500_000, refunded: 0, items: 2 },
          { walletId: 'wlt-2', userId: 'usr-of-wlt-2', settled: 700_000, refunded: 200_000, items: 2 },
        ],
      },
      expect.objectContaining({ distributorId: 'dst-b', amount: 99, items: 1 }),
    ]);
    expect(plan.waiting).toEqual([]);
  });

  it('leaves out items already claimed (at or below the watermark) and items past the scanned position', () => {
    const state = ledger([
      cutOf('dst-a', 'stb-1', 0, 5),
      {
        type: 'SettlementBatchClosed',
        data: { batchId: 'stb-1', distributorId: 'dst-a', outcome: 'confirmed', at: T0 },
      },
    ]);
    const plan = planSettlement({
      state,
      items: [
        item('dst-a', 'wlt-1', 'settlement', 1, 5),
        item('dst-a', 'wlt-1', 'settlement', 10, 6),
        item('dst-a', 'wlt-1', 'settlement', 100, 9),
      ],
      scannedThrough: 8,
      settlementAddressOf: addressFor('dst-a'),
    });
    expect(plan.batches).toEqual([
      expect.objectContaining({ fromPosition: 5, throughPosition: 8, amount: 10 }),
    ]);
  });

  it('keeps the items of a program without a settlement address waiting, and remembers where they start', () => {
    const plan = planSettlement({
      state: ledger([cutOf('dst-a', 'stb-1', 0, 3)]),
      items: [item('dst-b', 'wlt-9', 'settlement', 500, 4), item('dst-b', 'wlt-9', 'settlement', 500, 5)],
      scannedThrough: 6,
      settlementAddressOf: addressFor('dst-a'),
    });
    expect(plan.batches).toEqual([]);
    expect(plan.waiting).toEqual([
      { distributorId: 'dst-b', reason: 'no_settlement_address', items: 2, amount: 1_000 },
    ]);
    // Untracked until now, its watermark was the ledger's scanned position.
    expect(plan.deferred).toEqual([
      { distributorId: 'dst-b', fromPosition: 3, reason: 'no_settlement_address' },
    ]);
  });

  it('carries refunds that cover the spending over to a later batch instead of sending nothing or pulling money', () => {
    const plan = planSettlement({
      state: ledger([]),
      items: [item('dst-a', 'wlt-1', 'settlement', 300), item('dst-a', 'wlt-2', 'refund', 300)],
      scannedThrough: 2,
      settlementAddressOf: addressFor('dst-a'),
    });
    expect(plan.batches).toEqual([]);
    expect(plan.waiting).toEqual([
      { distributorId: 'dst-a', reason: 'net_not_positive', items: 2, amount: 0 },
    ]);
    expect(plan.deferred).toEqual([{ distributorId: 'dst-a', fromPosition: 0, reason: 'net_not_positive' }]);
  });

  it('cuts no second batch for a program while its batch is in flight', () => {
    const plan = planSettlement({
      state: ledger([cutOf('dst-a', 'stb-1', 0, 3)]),
      items: [item('dst-a', 'wlt-1', 'settlement', 10, 4)],
      scannedThrough: 4,
      settlementAddressOf: addressFor('dst-a'),
    });
    expect(plan.batches).toEqual([]);
    expect(plan.waiting).toEqual([
      { distributorId: 'dst-a', reason: 'batch_in_flight', items: 1, amount: 10 },
    ]);
    expect(plan.deferred).toEqual([]);
  });
});

describe('the settlement ledger', () => {
  const spec = deciderSpec(settlementLedgerDecider);
  const cut = (
    scannedThrough: number,
    cuts: { batchId: string; distributorId: string; fromPosition: number }[],
  ) => ({
    type: 'CutSettlementBatches' as const,
    data: {
      scannedThrough,
      cuts: cuts.map((c) => ({ ...c, throughPosition: scannedThrough, amount: 5 })),
      deferred: [],
      now: T0,
    },
  });

  it('claims a batch from the program watermark up to the scanned position', () => {
    spec
      .given([])
      .when(cut(9, [{ batchId: 'stb-1', distributorId: 'dst-a', fromPosition: 0 }]))
      .then([cutOf('dst-a', 'stb-1', 0, 9, 5)]);
  });

  it('refuses a cut that overlaps a claimed range (a plan made on an older ledger)', () => {
    spec
      .given([
        cutOf('dst-a', 'stb-1', 0, 9),
        {
          type: 'SettlementBatchClosed',
          data: { batchId: 'stb-1', distributorId: 'dst-a', outcome: 'confirmed', at: T0 },
        },
      ])
      .when(cut(12, [{ batchId: 'stb-2', distributorId: 'dst-a', fromPosition: 0 }]))
      .thenThrows('concurrency_conflict');
  });

  it('refuses a second batch of a program while one is in flight', () => {
    spec
      .given([cutOf('dst-a', 'stb-1', 0, 9)])
      .when(cut(12, [{ batchId: 'stb-2', distributorId: 'dst-a', fromPosition: 9 }]))
      .thenThrows('concurrency_conflict', /in flight/);
  });

  it('refuses waiting items that do not start at the program watermark', () => {
    spec
      .given([])
      .when({
        type: 'CutSettlementBatches',
        data: {
          scannedThrough: 9,
          cuts: [],
          deferred: [{ distributorId: 'dst-b', fromPosition: 3, reason: 'no_settlement_address' }],
          now: T0,
        },
      })
      .thenThrows('concurrency_conflict');
  });

  it('refuses a plan scanned to an older position than the ledger', () => {
    spec
      .given([cutOf('dst-a', 'stb-1', 0, 9)])
      .when(cut(5, []))
      .thenThrows('concurrency_conflict');
  });

  it('records nothing for a run that found nothing new, until it has read far enough to save rescanning', () => {
    spec
      .given([cutOf('dst-a', 'stb-1', 0, 9)])
      .when(cut(9, []))
      .thenNothing();
    spec
      .given([cutOf('dst-a', 'stb-1', 0, 9)])
      .when(cut(9 + SCAN_CHECKPOINT_EVENTS - 1, []))
      .thenNothing();
    spec
      .given([cutOf('dst-a', 'stb-1', 0, 9)])
      .when(cut(9 + SCAN_CHECKPOINT_EVENTS, []))
      .then([
        {
          type: 'SettlementBatchesCut',
          data: { scannedThrough: 9 + SCAN_CHECKPOINT_EVENTS, cuts: [], deferred: [], at: T0 },
        },
      ]);
  });

  it('records a program whose items start waiting, however short the scan', () => {
    const deferred = [{ distributorId: 'dst-b', fromPosition: 0, reason: 'no_settlement_address' as const }];
    spec
      .given([])
      .when({ type: 'CutSettlementBatches', data: { scannedThrough: 3, cuts: [], deferred, now: T0 } })
      .then([{ type: 'SettlementBatchesCut', data: { scannedThrough: 3, cuts: [], deferred, at: T0 } }]);
  });

  it('moves the watermark on when a batch is confirmed, and back to its start when it failed', () => {
    const confirmed = ledger([
      cutOf('dst-a', 'stb-1', 4, 9),
      {
        type: 'SettlementBatchClosed',
        data: { batchId: 'stb-1', distributorId: 'dst-a', outcome: 'confirmed', at: T0 },
      },
    ]);
    expect(confirmed.programs.get('dst-a')).toEqual({ watermark: 9, open: null });
    const failed = ledger([
      cutOf('dst-a', 'stb-1', 4, 9),
      {
        type: 'SettlementBatchClosed',
        data: { batchId: 'stb-1', distributorId: 'dst-a', outcome: 'failed', at: T0 },
      },
    ]);
    expect(failed.programs.get('dst-a')).toEqual({ watermark: 4, open: null });
    expect(scanStartOf(failed)).toBe(4);
    // A later run that found nothing of the program's: the scan no longer starts at its old watermark.
    const idle = ledger([
      cutOf('dst-a', 'stb-1', 4, 9),
      {
        type: 'SettlementBatchClosed',
        data: { batchId: 'stb-1', distributorId: 'dst-a', outcome: 'confirmed', at: T0 },
      },
      { type: 'SettlementBatchesCut', data: { scannedThrough: 20, cuts: [], deferred: [], at: T0 } },
    ]);
    expect(scanStartOf(idle)).toBe(20);
    expect(openSettlementBatches(ledger([cutOf('dst-a', 'stb-1', 4, 9)]))).toEqual([
      { distributorId: 'dst-a', batchId: 'stb-1', fromPosition: 4, throughPosition: 9 },
    ]);
  });

  it('closes a batch once: a retried close changes nothing', () => {
    const close = {
      type: 'CloseSettlementBatch' as const,
      data: { batchId: 'stb-1', distributorId: 'dst-a', outcome: 'confirmed' as const, now: T0 },
    };
    spec
      .given([cutOf('dst-a', 'stb-1', 0, 9)])
      .when(close)
      .then([
        {
          type: 'SettlementBatchClosed',
          data: { batchId: 'stb-1', distributorId: 'dst-a', outcome: 'confirmed', at: T0 },
        },
      ]);
    spec
      .given([
        cutOf('dst-a', 'stb-1', 0, 9),
        {
          type: 'SettlementBatchClosed',
          data: { batchId: 'stb-1', distributorId: 'dst-a', outcome: 'confirmed', at: T0 },
        },
      ])
      .when(close)
      .thenNothing();
  });
});

describe('a settlement batch', () => {
  const spec = deciderSpec(settlementBatchDecider);
  const opened: SettlementBatchEvent = {
    type: 'SettlementBatchOpened',
    data: {
      batchId: 'stb-1',
      distributorId: 'dst-a',
      settlementAddress: ADDRESS,
      fromPosition: 0,
      throughPosition: 9,
      amount: 800,
      settled: 1_000,
      refunded: 200,
      items: 3,
      wallets: [
        { walletId: 'wlt-1', userId: 'usr-1', settled: 1_000, refunded: 0, items: 2 },
        { walletId: 'wlt-2', userId: 'usr-2', settled: 0, refunded: 200, items: 1 },
      ],
      at: T0,
    },
  };
  const journal = (hash: string, refusedReason: string | null = null) => ({
    type: 'JournalSettlementTransfer' as const,
    data: {
      batchId: 'stb-1',
      toAddress: ADDRESS.toLowerCase(),
      amount: 800,
      hash,
      rawTransaction: `0xraw${hash}`,
      refusedReason,
      now: T0,
    },
  });
  const signed = (hash: string): SettlementBatchEvent => ({
    type: 'SettlementTransferSigned',
    data: {
      batchId: 'stb-1',
      toAddress: ADDRESS.toLowerCase(),
      amount: 800,
      hash,
      rawTransaction: `0xraw${hash}`,
      at: T0,
    },
  });
  const confirm = {
    type: 'ConfirmSettlementBatch' as const,
    data: { batchId: 'stb-1', transactionHash: '0xh1', blockNumber: 42, now: T0 },
  };

  it('journals the signed transfer of its amount to its settlement address', () => {
    spec
      .given([opened])
      .when(journal('0xh1'))
      .then([signed('0xh1')]);
  });

  it('refuses to journal a transfer of another amount or to another address', () => {
    spec
      .given([opened])
      .when({ ...journal('0xh1'), data: { ...journal('0xh1').data, amount: 801 } })
      .thenThrows('validation_error');
    spec
      .given([opened])
      .when({
        ...journal('0xh1'),
        data: { ...journal('0xh1').data, toAddress: '0x0000000000000000000000000000000000000001' },
      })
      .thenThrows('validation_error');
  });

  it('records a refusal of the journaled transfer without signing it again', () => {
    spec
      .given([opened, signed('0xh1')])
      .when(journal('0xh1', 'the hot wallet cannot pay the gas'))
      .then([
        {
          type: 'SettlementTransferRefused',
          data: { batchId: 'stb-1', hash: '0xh1', reason: 'the hot wallet cannot pay the gas', at: T0 },
        },
      ]);
  });

  it('is confirmed once, with every wallet of the batch', () => {
    spec
      .given([opened, signed('0xh1')])
      .when(confirm)
      .then([
        {
          type: 'SettlementBatchConfirmed',
          data: {
            batchId: 'stb-1',
            amount: 800,
            transactionHash: '0xh1',
            blockNumber: 42,
            wallets: opened.data.wallets,
            at: T0,
          },
        },
      ]);
    const confirmed: SettlementBatchEvent = {
      type: 'SettlementBatchConfirmed',
      data: {
        batchId: 'stb-1',
        amount: 800,
        transactionHash: '0xh1',
        blockNumber: 42,
        wallets: opened.data.wallets,
        at: T0,
      },
    };
    spec
      .given([opened, signed('0xh1'), confirmed])
      .when(confirm)
      .thenNothing();
    spec
      .given([opened, signed('0xh1'), confirmed])
      .when({
        type: 'FailSettlementBatch',
        data: { batchId: 'stb-1', reason: 'late', transactionHash: null, now: T0 },
      })
      .thenNothing();
  });

  it('refuses a journal entry once the batch is closed (a confirmed batch is never signed again)', () => {
    spec
      .given([
        opened,
        {
          type: 'SettlementBatchFailed',
          data: { batchId: 'stb-1', reason: 'reverted', transactionHash: '0xh1', at: T0 },
        },
      ])
      .when(journal('0xh2'))
      .thenThrows('invalid_state_transition');
  });

  it('opens once: the same batch opened again changes nothing', () => {
    if (opened.type !== 'SettlementBatchOpened') throw new Error('the batch must be opened');
    const { at: _at, ...content } = opened.data;
    spec
      .given([opened])
      .when({ type: 'OpenSettlementBatch', data: { ...content, now: T0 } })
      .thenNothing();
  });

  it('gives one settlement notice and one refund notice per wallet, each with its own amount', () => {
    expect(settlementNoticesOf({ walletId: 'w', userId: 'u', settled: 5, refunded: 2, items: 2 })).toEqual([
      { type: 'settlement', amount: 5 },
      { type: 'refund', amount: 2 },
    ]);
    expect(settlementNoticesOf({ walletId: 'w', userId: 'u', settled: 0, refunded: 2, items: 1 })).toEqual([
      { type: 'refund', amount: 2 },
    ]);
  });
});

describe('which wallet postings are settlement items', () => {
  const entry = { walletId: 'wlt-1', userId: 'usr-1', balance: 0, held: 0, at: T0 };
  const at = { position: 7, distributorId: 'dst-a' };

  it('takes clearings and force posts as debits and refunds as credits', () => {
    const cleared: WalletEvent = {
      type: 'WalletHoldSettled',
      data: { ...entry, holdId: 'h', heldAmount: 10, amount: 12 },
    };
    const forced: WalletEvent = {
      type: 'WalletForcePosted',
      data: { ...entry, postingId: 'p', amount: 3, reference: null },
    };
    const refunded: WalletEvent = {
      type: 'WalletRefunded',
      data: { ...entry, refundId: 'r', amount: 4, reference: null },
    };
    expect(settlementItemOf(cleared, at)).toEqual({
      ...at,
      walletId: 'wlt-1',
      userId: 'usr-1',
      kind: 'settlement',
      amount: 12,
    });
    expect(settlementItemOf(forced, at)).toMatchObject({ kind: 'settlement', amount: 3 });
    expect(settlementItemOf(refunded, at)).toMatchObject({ kind: 'refund', amount: 4 });
  });

  it('ignores releases, fees, deposits and withdrawals', () => {
    const events: WalletEvent[] = [
      { type: 'WalletHoldReleased', data: { ...entry, holdId: 'h', amount: 5 } },
      { type: 'WalletFeeCharged', data: { ...entry, feeId: 'f', amount: 1, reference: null } },
      {
        type: 'WalletDepositCredited',
        data: {
          ...entry,
          depositId: 'd',
          amount: 9,
          transactionHash: '0x',
          logIndex: 0,
          blockNumber: 1,
          fromAddress: null,
          source: 'chain',
        },
      },
      { type: 'WithdrawalRequested', data: { ...entry, withdrawalId: 'w', amount: 2, toAddress: ADDRESS } },
    ];
    for (const event of events) expect(settlementItemOf(event, at)).toBeNull();
  });
});
