import { foldEvents } from '@cip/shared/contracts';
import { deciderSpec } from '@cip/shared/testing';
import type { WalletCommand } from './wallet.commands';
import { availableBalance, walletDecider, WalletRecord } from './wallet.decider';
import type { WalletEvent } from './wallet.events';

// ---------------------------------------------------------------------------------------------------
// The money path after an authorization: partial and multiple clearings, clearings above the hold within
// a tolerance, partial reversals, expiry, force posts; every one idempotent on its id, every figure exact.
// ---------------------------------------------------------------------------------------------------

const spec = deciderSpec(walletDecider);
const WALLET = 'wlt-00000000-0000-5000-8000-000000000002';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const USDC = 1_000_000;

const created: WalletEvent = {
  type: 'WalletCreated',
  data: {
    walletId: WALLET,
    userId: 'usr-1',
    distributorId: 'dst-1',
    depositAddress: '0x0000000000000000000000000000000000000002',
    addressIndex: 0,
    chain: 'simulated',
    currency: 'USDC',
    createdAt: T0,
  },
};

const run = (history: WalletEvent[], ...commands: WalletCommand[]): WalletEvent[] => {
  const events = [...history];
  for (const command of commands)
    events.push(...walletDecider.decide(command, foldEvents(walletDecider, events)));
  return events;
};
const wallet = (events: WalletEvent[]) => foldEvents(walletDecider, events) as WalletRecord;
const figures = (events: WalletEvent[]) => {
  const state = wallet(events);
  return { balance: state.balance, held: state.held, available: availableBalance(state) };
};

const deposit = (amount: number): WalletCommand => ({
  type: 'CreditDeposit',
  data: {
    depositId: `0xfund:${amount}`,
    amount,
    transactionHash: '0xfund',
    logIndex: 0,
    blockNumber: 1,
    fromAddress: null,
    source: 'chain',
    now: T1,
  },
});
const hold = (holdId: string, amount: number, extra: { force?: boolean } = {}): WalletCommand => ({
  type: 'PlaceHold',
  data: { holdId, amount, now: T1, ...extra },
});
const clear = (
  holdId: string,
  amount: number,
  options: { clearingId?: string; final?: boolean; overdraftAllowance?: number } = {},
): WalletCommand => ({ type: 'SettleHold', data: { holdId, amount, ...options, now: T1 } });
const reverse = (holdId: string, options: { reversalId?: string; amount?: number } = {}): WalletCommand => ({
  type: 'ReleaseHold',
  data: { holdId, ...options, now: T1 },
});
const expire = (holdId: string): WalletCommand => ({ type: 'ExpireHold', data: { holdId, now: T1 } });
const forcePost = (postingId: string, amount: number): WalletCommand => ({
  type: 'ForcePost',
  data: { postingId, amount, reference: 'net-123', now: T1 },
});

const funded = run([created], deposit(100 * USDC));
const held = run(funded, hold('aut-1', 40 * USDC));

/** The balance and held total every ledger event implies, summed from the amounts alone. */
function summed(events: WalletEvent[]): { balance: number; held: number } {
  let balance = 0;
  let heldTotal = 0;
  for (const event of events) {
    switch (event.type) {
      case 'WalletDepositCredited':
      case 'WalletRefunded':
        balance += event.data.amount;
        break;
      case 'WalletFeeCharged':
      case 'WalletForcePosted':
        balance -= event.data.amount;
        break;
      case 'WalletHoldPlaced':
        heldTotal += event.data.amount;
        break;
      case 'WalletHoldReleased':
        heldTotal -= event.data.amount;
        break;
      case 'WalletHoldSettled':
        balance -= event.data.amount;
        heldTotal -= event.data.heldAmount;
        break;
      default:
        break;
    }
  }
  return { balance, held: heldTotal };
}

describe('wallet decider: partial and multiple clearings', () => {
  it('clears part of a hold and keeps the rest held, the figures exact', () => {
    const events = run(held, clear('aut-1', 15 * USDC, { clearingId: 'clr-1', final: false }));
    expect(events.at(-1)).toMatchObject({
      type: 'WalletHoldSettled',
      data: {
        holdId: 'aut-1',
        clearingId: 'clr-1',
        amount: 15 * USDC,
        heldAmount: 15 * USDC,
        final: false,
        cleared: 15 * USDC,
        remaining: 25 * USDC,
        balance: 85 * USDC,
        held: 25 * USDC,
      },
    });
    expect(wallet(events).holds.get('aut-1')).toMatchObject({
      amount: 25 * USDC,
      authorized: 40 * USDC,
      cleared: 15 * USDC,
    });
  });

  it('takes several partial clearings, each once per clearingId, and a final one releases the remainder', () => {
    const events = run(
      held,
      clear('aut-1', 10 * USDC, { clearingId: 'clr-1', final: false }),
      clear('aut-1', 10 * USDC, { clearingId: 'clr-1', final: false }),
      clear('aut-1', 7_333_333, { clearingId: 'clr-2', final: false }),
      clear('aut-1', 7_333_333, { clearingId: 'clr-2', final: false }),
      clear('aut-1', 5 * USDC, { clearingId: 'clr-3' }),
      clear('aut-1', 5 * USDC, { clearingId: 'clr-3' }),
      // Retries of earlier clearings after the hold closed change nothing either.
      clear('aut-1', 10 * USDC, { clearingId: 'clr-1', final: false }),
    );
    const clearings = events.filter((e) => e.type === 'WalletHoldSettled');
    expect(clearings).toHaveLength(3);
    expect(clearings.at(-1)).toMatchObject({
      data: { final: true, heldAmount: 40 * USDC - 17_333_333, remaining: 0, cleared: 22_333_333 },
    });
    expect(figures(events)).toEqual({
      balance: 100 * USDC - 22_333_333,
      held: 0,
      available: 100 * USDC - 22_333_333,
    });
    expect(summed(events)).toEqual({ balance: 100 * USDC - 22_333_333, held: 0 });
    expect(wallet(events).holds.has('aut-1')).toBe(false);
  });

  it('lets partial clearings exceed the hold only within the tolerance, summed over all of them', () => {
    const twoThirds = run(
      held,
      clear('aut-1', 30 * USDC, { clearingId: 'clr-1', final: false, overdraftAllowance: 8 * USDC }),
    );
    // 30 + 15 = 45 > 40 + 4: refused, nothing recorded.
    spec
      .given(twoThirds)
      .when(clear('aut-1', 15 * USDC, { clearingId: 'clr-2', final: false, overdraftAllowance: 4 * USDC }))
      .thenThrows('amount_exceeds_hold', /tolerance of 4 USDC/);
    // 30 + 18 = 48 = 40 + 8: accepted; the hold only covered 10 of it, the balance pays the other 8.
    const events = run(
      twoThirds,
      clear('aut-1', 18 * USDC, { clearingId: 'clr-2', final: false, overdraftAllowance: 8 * USDC }),
    );
    expect(events.at(-1)).toMatchObject({
      data: { amount: 18 * USDC, heldAmount: 10 * USDC, remaining: 0, cleared: 48 * USDC },
    });
    expect(figures(events)).toEqual({ balance: 52 * USDC, held: 0, available: 52 * USDC });
    // Still open (not final), but the tolerance is used up.
    spec
      .given(events)
      .when(clear('aut-1', 1, { clearingId: 'clr-3', overdraftAllowance: 8 * USDC }))
      .thenThrows('amount_exceeds_hold');
  });

  it('takes the balance negative by a tip above the hold when the wallet had no more (spec part 1, fact 4)', () => {
    const spent = run(funded, hold('aut-9', 100 * USDC));
    const events = run(
      spent,
      clear('aut-9', 115 * USDC, { clearingId: 'clr-9', overdraftAllowance: 20 * USDC }),
    );
    expect(figures(events)).toEqual({ balance: -15 * USDC, held: 0, available: -15 * USDC });
  });

  it('refuses a clearing the wallet has not seen on a closed hold (a late clearing is a force post)', () => {
    const closed = run(held, clear('aut-1', 40 * USDC));
    spec
      .given(closed)
      .when(clear('aut-1', 5 * USDC, { clearingId: 'clr-late' }))
      .thenThrows('invalid_state_transition', /closed/);
    // The single clearing under the hold's own id, retried, changes nothing.
    spec
      .given(closed)
      .when(clear('aut-1', 40 * USDC))
      .thenNothing();
  });

  it('requires a clearingId for a partial clearing, and a valid tolerance', () => {
    spec
      .given(held)
      .when(clear('aut-1', USDC, { final: false }))
      .thenThrows('validation_error', /clearingId/);
    spec
      .given(held)
      .when(clear('aut-1', USDC, { clearingId: 'clr-1', overdraftAllowance: Number.NaN }))
      .thenThrows('validation_error');
    spec
      .given(held)
      .when(clear('aut-1', USDC, { clearingId: 'clr-1', overdraftAllowance: -1 }))
      .thenThrows('validation_error');
    spec
      .given(held)
      .when(clear('aut-1', 0, { clearingId: 'clr-1' }))
      .thenThrows('validation_error');
    spec
      .given(held)
      .when(clear('aut-x', USDC, { clearingId: 'clr-1' }))
      .thenThrows('not_found');
  });

  it('refuses a clearing whose debit would take the balance beyond the bound of the ledger', () => {
    // The balance at -10^15 + 1, the lowest it may be but one minor unit.
    const negative = run(funded, forcePost('fp-big', 10 ** 15), forcePost('fp-more', 100 * USDC - 1));
    const placed = run(negative, hold('aut-big', 1, { force: true }));
    spec
      .given(placed)
      .when(clear('aut-big', 3, { clearingId: 'clr-big', overdraftAllowance: 2 }))
      .thenThrows('amount_too_large');
  });
});

describe('wallet decider: partial and full reversals', () => {
  it('releases part of a hold, once per reversalId, the rest still held', () => {
    const events = run(
      held,
      reverse('aut-1', { reversalId: 'rev-1', amount: 12 * USDC }),
      reverse('aut-1', { reversalId: 'rev-1', amount: 12 * USDC }),
    );
    expect(events.filter((e) => e.type === 'WalletHoldReleased')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      data: { amount: 12 * USDC, reversalId: 'rev-1', reason: 'reversal', remaining: 28 * USDC },
    });
    expect(figures(events)).toEqual({ balance: 100 * USDC, held: 28 * USDC, available: 72 * USDC });
  });

  it('closes the hold when a partial reversal leaves nothing held, or on a full reversal', () => {
    const exact = run(held, reverse('aut-1', { reversalId: 'rev-1', amount: 40 * USDC }));
    expect(wallet(exact).holds.has('aut-1')).toBe(false);
    const full = run(held, reverse('aut-1', { reversalId: 'rev-1', amount: 10 * USDC }), reverse('aut-1'));
    expect(full.at(-1)).toMatchObject({ data: { amount: 30 * USDC, remaining: 0 } });
    expect(figures(full)).toEqual({ balance: 100 * USDC, held: 0, available: 100 * USDC });
    spec.given(full).when(reverse('aut-1')).thenNothing();
  });

  it('refuses a reversal above what the hold still holds, and a partial one without a reversalId', () => {
    const partlyCleared = run(held, clear('aut-1', 30 * USDC, { clearingId: 'clr-1', final: false }));
    spec
      .given(partlyCleared)
      .when(reverse('aut-1', { reversalId: 'rev-1', amount: 11 * USDC }))
      .thenThrows('amount_exceeds_hold', /holds 10 USDC/);
    spec
      .given(held)
      .when({ type: 'ReleaseHold', data: { holdId: 'aut-1', amount: USDC, now: T1 } })
      .thenThrows('validation_error', /reversalId/);
    spec
      .given(run(held, reverse('aut-1')))
      .when(reverse('aut-1', { reversalId: 'rev-late', amount: USDC }))
      .thenThrows('invalid_state_transition');
  });

  it('lowers the clearing limit by what was reversed', () => {
    const reversed = run(held, reverse('aut-1', { reversalId: 'rev-1', amount: 10 * USDC }));
    spec
      .given(reversed)
      .when(clear('aut-1', 31 * USDC, { clearingId: 'clr-1' }))
      .thenThrows('amount_exceeds_hold');
    const events = run(reversed, clear('aut-1', 30 * USDC, { clearingId: 'clr-1' }));
    expect(figures(events)).toEqual({ balance: 70 * USDC, held: 0, available: 70 * USDC });
    expect(summed(events)).toEqual({ balance: 70 * USDC, held: 0 });
  });
});

describe('wallet decider: expiry', () => {
  it('releases what an uncleared hold still holds, with reason expiry, once', () => {
    const events = run(
      held,
      clear('aut-1', 15 * USDC, { clearingId: 'clr-1', final: false }),
      expire('aut-1'),
      expire('aut-1'),
    );
    expect(events.filter((e) => e.type === 'WalletHoldReleased')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          amount: 25 * USDC,
          reason: 'expiry',
          remaining: 0,
          cleared: 15 * USDC,
        }),
      }),
    ]);
    expect(figures(events)).toEqual({ balance: 85 * USDC, held: 0, available: 85 * USDC });
  });

  it('changes nothing on a hold already cleared, and answers not_found for a hold never placed', () => {
    spec
      .given(run(held, clear('aut-1', 40 * USDC)))
      .when(expire('aut-1'))
      .thenNothing();
    spec.given(held).when(expire('aut-x')).thenThrows('not_found');
  });
});

describe('wallet decider: force posts', () => {
  it('debits a clearing without an authorization whatever the balance and a compliance hold, once per postingId', () => {
    const onHold = run(funded, { type: 'PlaceComplianceHold', data: { reason: 'aml', now: T1 } });
    const events = run(onHold, forcePost('fp-1', 130 * USDC), forcePost('fp-1', 130 * USDC));
    expect(events.filter((e) => e.type === 'WalletForcePosted')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ postingId: 'fp-1', amount: 130 * USDC, reference: 'net-123' }),
      }),
    ]);
    expect(figures(events)).toEqual({ balance: -30 * USDC, held: 0, available: -30 * USDC });
    spec.given(funded).when(forcePost('fp-2', 0)).thenThrows('validation_error');
  });

  it('keeps a forced (offline) hold clearable like any other', () => {
    const events = run(
      funded,
      hold('aut-off', 150 * USDC, { force: true }),
      clear('aut-off', 150 * USDC, { clearingId: 'clr-off' }),
    );
    expect(figures(events)).toEqual({ balance: -50 * USDC, held: 0, available: -50 * USDC });
    expect(summed(events)).toEqual({ balance: -50 * USDC, held: 0 });
  });
});

describe('wallet decider: hold tolerance on placement', () => {
  it('refuses an overdraft allowance that is not a non-negative integer (a NaN would lift the limit)', () => {
    spec
      .given(funded)
      .when({
        type: 'PlaceHold',
        data: { holdId: 'aut-n', amount: 500 * USDC, overdraftAllowance: Number.NaN, now: T1 },
      })
      .thenThrows('validation_error');
  });
});
