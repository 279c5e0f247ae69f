import { foldEvents } from '@cip/shared/contracts';
import { hasRecentId, RECENT_ID_CAPACITY, recentIdCount } from './recent-ids';
import type { WalletCommand } from './wallet.commands';
import { walletDecider, WalletRecord } from './wallet.decider';
import type { WalletEvent } from './wallet.events';

const T0 = '2026-01-01T00:00:00.000Z';
const created: WalletEvent = {
  type: 'WalletCreated',
  data: {
    walletId: 'wlt-1',
    userId: 'usr-1',
    distributorId: 'dst-1',
    depositAddress: '0x0000000000000000000000000000000000000001',
    addressIndex: 0,
    chain: 'simulated',
    currency: 'USDC',
    createdAt: T0,
  },
};

const deposit = (
  depositId: string,
  amount = 1_000_000,
  extra: { alreadyRecorded?: boolean } = {},
): WalletCommand => ({
  type: 'CreditDeposit',
  data: {
    depositId,
    amount,
    transactionHash: '0xabc',
    logIndex: 0,
    blockNumber: 7,
    fromAddress: null,
    source: 'chain',
    now: T0,
    ...extra,
  },
});
const hold = (holdId: string, amount: number): WalletCommand => ({
  type: 'PlaceHold',
  data: { holdId, amount, now: T0 },
});
const release = (holdId: string): WalletCommand => ({ type: 'ReleaseHold', data: { holdId, now: T0 } });

/** Decides and folds, keeping every intermediate state (as a cache of folded states would). */
function play(commands: WalletCommand[]): { states: WalletRecord[]; events: WalletEvent[] } {
  let state = walletDecider.evolve(walletDecider.initialState(), created);
  const states = [state as WalletRecord];
  const events: WalletEvent[] = [created];
  for (const command of commands) {
    for (const event of walletDecider.decide(command, state)) {
      state = walletDecider.evolve(state, event);
      events.push(event);
    }
    states.push(state as WalletRecord);
  }
  return { states, events };
}

/** A deep, comparable picture of a state (maps and sets as sorted arrays). */
const snapshot = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value, (_key, v: unknown) =>
      v instanceof Map ? [...v.entries()] : v instanceof Set ? [...v].sort() : v,
    ),
  );

describe('wallet state', () => {
  it('is never changed by folding a later event into it', () => {
    const { states } = play([deposit('d-1'), hold('h-1', 100), deposit('d-2'), release('h-1')]);
    const pictures = states.map(snapshot);
    // Fold everything again from each state: none of the earlier states may move.
    play([deposit('d-3'), hold('h-2', 5), release('h-2')]);
    states.forEach((state, i) => expect(snapshot(state)).toEqual(pictures[i]));
    const afterFirstDeposit = states[1];
    expect(hasRecentId(afterFirstDeposit.usedIds, 'd-1')).toBe(true);
    expect(hasRecentId(afterFirstDeposit.usedIds, 'd-2')).toBe(false);
    expect(hasRecentId(afterFirstDeposit.usedIds, 'h-1')).toBe(false);
    expect(afterFirstDeposit.holds.size).toBe(0);
    expect(states[2].holds.has('h-1')).toBe(true);
    expect(states[4].holds.has('h-1')).toBe(false);
  });

  it('still ignores a retried posting: a deposit, a hold placed again, a release of a closed hold', () => {
    const { states, events } = play([
      deposit('d-1', 5_000_000),
      deposit('d-1', 5_000_000),
      hold('h-1', 1_000_000),
      hold('h-1', 1_000_000),
      release('h-1'),
      release('h-1'),
      hold('h-1', 1_000_000),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'WalletCreated',
      'WalletDepositCredited',
      'WalletHoldPlaced',
      'WalletHoldReleased',
    ]);
    const last = states[states.length - 1];
    expect([last.balance, last.held]).toEqual([5_000_000, 0]);
  });

  it('credits once a deposit the service found already recorded, even when the wallet has forgotten its id', () => {
    const { events } = play([deposit('d-old', 1_000_000, { alreadyRecorded: true })]);
    expect(events.map((e) => e.type)).toEqual(['WalletCreated']);
  });

  it('remembers a bounded window of recent ids, however long the history', () => {
    const count = RECENT_ID_CAPACITY * 3;
    const { events } = play(Array.from({ length: count }, (_, i) => deposit(`d-${i}`, 1)));
    // Folded from scratch, as a restart would.
    const state = foldEvents(walletDecider, events) as WalletRecord;
    expect(state.balance).toBe(count);
    expect(recentIdCount(state.usedIds)).toBeLessThanOrEqual(RECENT_ID_CAPACITY);
    // The newest ids are remembered (a retry is ignored); the oldest have been let go.
    expect(walletDecider.decide(deposit(`d-${count - 1}`, 1), state)).toEqual([]);
    expect(hasRecentId(state.usedIds, `d-${count - RECENT_ID_CAPACITY + 200}`)).toBe(true);
    expect(hasRecentId(state.usedIds, 'd-0')).toBe(false);
  });
});
