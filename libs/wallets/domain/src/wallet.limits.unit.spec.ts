import { DomainError, foldEvents } from '@cip/shared/contracts';
import { deciderSpec } from '@cip/shared/testing';
import { MAX_MINOR_UNITS } from './money';
import type { WalletCommand } from './wallet.commands';
import { walletDecider, WalletRecord } from './wallet.decider';
import { isLedgerEvent, type WalletEvent } from './wallet.events';

// The ledger at the bound of MAX_MINOR_UNITS (money.ts): amounts and figures at, just below and just above
// it, and at Number.MAX_SAFE_INTEGER, refused with amount_too_large and nothing recorded; and the balance
// equal to the sum of the postings, summed as bigint so that the check cannot share a rounding with the ledger.

const spec = deciderSpec(walletDecider);
const MAX = MAX_MINOR_UNITS;
const T = '2026-01-01T00:00:00.000Z';
const created: WalletEvent = {
  type: 'WalletCreated',
  data: {
    walletId: 'wlt-00000000-0000-5000-8000-000000000009',
    userId: 'usr-9',
    distributorId: 'dst-1',
    depositAddress: '0x0000000000000000000000000000000000000009',
    addressIndex: 9,
    chain: 'simulated',
    currency: 'USDC',
    createdAt: T,
  },
};

let ids = 0;
const nextId = (prefix: string) => `${prefix}-${++ids}`;
const deposit = (amount: number): WalletCommand => {
  const hash = nextId('0xdep');
  return {
    type: 'CreditDeposit',
    data: {
      depositId: `${hash}:0`,
      amount,
      transactionHash: hash,
      logIndex: 0,
      blockNumber: 1,
      fromAddress: null,
      source: 'chain',
      now: T,
    },
  };
};
const hold = (amount: number, holdId = nextId('aut'), force = false): WalletCommand => ({
  type: 'PlaceHold',
  data: { holdId, amount, force, now: T },
});
const fee = (amount: number): WalletCommand => ({
  type: 'ChargeFee',
  data: { feeId: nextId('fee'), amount, now: T },
});
const refund = (amount: number): WalletCommand => ({
  type: 'Refund',
  data: { refundId: nextId('ref'), amount, now: T },
});

/** Applies commands in turn; a refused one must record nothing, and the run goes on. */
function run(history: WalletEvent[], commands: WalletCommand[]) {
  const events = [...history];
  const refusals: string[] = [];
  for (const command of commands) {
    try {
      events.push(...walletDecider.decide(command, foldEvents(walletDecider, events)));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      refusals.push(error.code);
    }
  }
  return { events, refusals, wallet: foldEvents(walletDecider, events) as WalletRecord };
}

/** The ledger recomputed from the postings' own amounts (as bigint: no float can round the sum). */
function sumOfPostings(events: WalletEvent[]): { balance: bigint; held: bigint } {
  let balance = 0n;
  let held = 0n;
  for (const event of events) {
    if (!isLedgerEvent(event)) continue;
    const amount = BigInt(event.data.amount);
    switch (event.type) {
      case 'WalletDepositCredited':
      case 'WalletRefunded':
        balance += amount;
        break;
      case 'WalletFeeCharged':
        balance -= amount;
        break;
      case 'WalletHoldPlaced':
      case 'WithdrawalRequested':
        held += amount;
        break;
      case 'WalletHoldReleased':
      case 'WithdrawalRejected':
        held -= amount;
        break;
      case 'WalletHoldSettled':
        balance -= amount;
        held -= BigInt(event.data.heldAmount);
        break;
      case 'WithdrawalConfirmed':
        balance -= amount;
        held -= amount;
        break;
    }
  }
  return { balance, held };
}

function expectLedgerIsSumOfPostings(events: WalletEvent[]): void {
  const wallet = foldEvents(walletDecider, events) as WalletRecord;
  expect({ balance: BigInt(wallet.balance), held: BigInt(wallet.held) }).toEqual(sumOfPostings(events));
  for (const figure of [wallet.balance, wallet.held, wallet.balance - wallet.held]) {
    expect(Number.isSafeInteger(figure)).toBe(true);
    expect(Math.abs(figure)).toBeLessThanOrEqual(MAX);
  }
}

describe('wallet ledger at the limits', () => {
  it.each([
    ['the bound - 1', MAX - 1, null],
    ['the bound', MAX, null],
    ['the bound + 1', MAX + 1, 'amount_too_large'],
    ['MAX_SAFE_INTEGER - 1', Number.MAX_SAFE_INTEGER - 1, 'amount_too_large'],
    ['MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER, 'amount_too_large'],
    ['MAX_SAFE_INTEGER + 1', Number.MAX_SAFE_INTEGER + 1, 'amount_too_large'],
  ])('takes a deposit, a refund and a fee of %s minor units only within the bound', (_, amount, refusal) => {
    for (const command of [deposit(amount), refund(amount), fee(amount)]) {
      if (refusal) spec.given([created]).when(command).thenThrows(refusal);
      else expect(walletDecider.decide(command, foldEvents(walletDecider, [created]))).toHaveLength(1);
    }
  });

  it('credits up to the bound, then refuses a credit that would pass it and records nothing', () => {
    const { events, refusals, wallet } = run(
      [created],
      [deposit(MAX - 1), deposit(1), deposit(1), refund(1)],
    );
    expect(refusals).toEqual(['amount_too_large', 'amount_too_large']);
    expect(wallet.balance).toBe(MAX);
    expect(events).toHaveLength(3);
    expectLedgerIsSumOfPostings(events);
  });

  it('keeps many postings summing to the bound exact, and refuses one minor unit more', () => {
    const step = MAX / 1_000;
    const { events, refusals, wallet } = run(
      [created],
      [...Array.from({ length: 1_000 }, () => deposit(step)), deposit(1)],
    );
    expect(refusals).toEqual(['amount_too_large']);
    expect(wallet.balance).toBe(MAX);
    expectLedgerIsSumOfPostings(events);
  });

  it('bounds the held total, the available balance and a negative balance too', () => {
    const forced = run([created], [hold(MAX, 'aut-a', true), hold(1, 'aut-b', true)]);
    expect(forced.refusals).toEqual(['amount_too_large']);
    expect(forced.wallet).toMatchObject({ balance: 0, held: MAX });

    const negative = run([created], [fee(MAX), fee(1)]);
    expect(negative.refusals).toEqual(['amount_too_large']);
    expect(negative.wallet.balance).toBe(-MAX);

    // Available = balance - held would pass -MAX: refused although each figure alone is within the bound.
    const both = run([created], [fee(1), hold(MAX, 'aut-c', true)]);
    expect(both.refusals).toEqual(['amount_too_large']);
    expectLedgerIsSumOfPostings(both.events);
  });

  it('keeps the balance equal to the sum of its postings through any mix of movements near the bound', () => {
    // A fixed pseudo-random walk (mulberry32), so a failure replays.
    let seed = 20260110;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const amounts = [1, MAX - 1, MAX, MAX + 1, Number.MAX_SAFE_INTEGER, Math.floor(MAX / 3), 999_999];
    const pick = () => amounts[Math.floor(random() * amounts.length)];
    let events: WalletEvent[] = [created];
    const refused = new Set<string>();
    for (let step = 0; step < 2_000; step++) {
      const wallet = foldEvents(walletDecider, events) as WalletRecord;
      const open = [...wallet.holds.keys()];
      const openId = open[Math.floor(random() * open.length)];
      const choices: WalletCommand[] = [deposit(pick()), refund(pick()), fee(pick()), hold(pick())];
      if (openId)
        choices.push(
          { type: 'ReleaseHold', data: { holdId: openId, now: T } },
          { type: 'SettleHold', data: { holdId: openId, amount: pick(), now: T } },
        );
      const result = run(events, [choices[Math.floor(random() * choices.length)]]);
      result.refusals.forEach((code) => refused.add(code));
      events = result.events;
      expectLedgerIsSumOfPostings(events);
    }
    // The walk did reach the bound from both sides.
    expect(refused).toContain('amount_too_large');
  });
});

describe('a confirmed transfer the ledger cannot take', () => {
  const refusal: WalletCommand = {
    type: 'RefuseDeposit',
    data: {
      depositId: '0xbig:0',
      amountMinor: (2n ** 80n).toString(),
      transactionHash: '0xbig',
      logIndex: 0,
      blockNumber: 7,
      fromAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      reason: 'amount_too_large',
      now: T,
    },
  };
  const refused: WalletEvent = {
    type: 'WalletDepositRefused',
    data: {
      walletId: created.data.walletId,
      depositId: '0xbig:0',
      amountMinor: (2n ** 80n).toString(),
      transactionHash: '0xbig',
      logIndex: 0,
      blockNumber: 7,
      fromAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      reason: 'amount_too_large',
      at: T,
    },
  };

  it('is recorded once, with its exact amount, and posts nothing', () => {
    spec.given([created]).when(refusal).then([refused]);
    spec.given([created, refused]).when(refusal).thenNothing();
    const state = foldEvents(walletDecider, [created, refused]) as WalletRecord;
    expect([state.balance, state.held]).toEqual([0, 0]);
  });
});
