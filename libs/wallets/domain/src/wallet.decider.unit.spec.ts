import { foldEvents } from '@cip/shared/contracts';
import { deciderSpec } from '@cip/shared/testing';
import type { WalletCommand } from './wallet.commands';
import { hasRecentId, RECENT_ID_CAPACITY, recentIdCount } from './recent-ids';
import { availableBalance, walletDecider, WalletRecord } from './wallet.decider';
import type { WalletEvent } from './wallet.events';

const spec = deciderSpec(walletDecider);
const WALLET = 'wlt-00000000-0000-5000-8000-000000000001';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const USDC = 1_000_000;

const created: WalletEvent = {
  type: 'WalletCreated',
  data: {
    walletId: WALLET,
    userId: 'usr-1',
    distributorId: 'dst-1',
    depositAddress: '0x0000000000000000000000000000000000000001',
    addressIndex: 0,
    chain: 'simulated',
    currency: 'USDC',
    createdAt: T0,
  },
};

const createWallet = (now = T0): WalletCommand => {
  const {
    createdAt: _createdAt,
    currency: _currency,
    ...data
  } = created.data as Extract<WalletEvent, { type: 'WalletCreated' }>['data'];
  return { type: 'CreateWallet', data: { ...data, now } };
};

const run = (history: WalletEvent[], ...commands: WalletCommand[]): WalletEvent[] => {
  const events = [...history];
  for (const command of commands)
    events.push(...walletDecider.decide(command, foldEvents(walletDecider, events)));
  return events;
};
const wallet = (events: WalletEvent[]) => foldEvents(walletDecider, events) as WalletRecord;

const deposit = (amount: number, depositId = `0xabc:${amount}`): WalletCommand => ({
  type: 'CreditDeposit',
  data: {
    depositId,
    amount,
    transactionHash: '0xabc',
    logIndex: 0,
    blockNumber: 7,
    fromAddress: null,
    source: 'chain',
    now: T1,
  },
});
const hold = (
  holdId: string,
  amount: number,
  extra: Partial<{ overdraftAllowance: number; force: boolean }> = {},
): WalletCommand => ({
  type: 'PlaceHold',
  data: { holdId, amount, now: T1, ...extra },
});
const funded = run([created], deposit(100 * USDC));

describe('wallet decider: provisioning', () => {
  it('creates a wallet once; creating it again changes nothing (redelivered saga)', () => {
    spec.given([]).when(createWallet()).then([created]);
    spec.given([created]).when(createWallet(T1)).thenNothing();
  });

  it('records a provisioning failure; the wallet then answers create_wallet_error until a retry creates it', () => {
    const failure: WalletCommand = {
      type: 'RecordProvisioningFailure',
      data: {
        walletId: WALLET,
        userId: 'usr-1',
        distributorId: 'dst-1',
        reason: 'seed unavailable',
        now: T0,
      },
    };
    const history = run([], failure);
    expect(history).toHaveLength(1);
    spec
      .given(history)
      .when(deposit(USDC))
      .thenThrows('create_wallet_error', /seed unavailable/);
    const retried = run(history, createWallet(T1));
    expect(wallet(retried)).toMatchObject({ status: 'active', balance: 0, createdAt: T1 });
    spec.given(retried).when(failure).thenNothing();
  });
});

describe('wallet decider: deposits', () => {
  it('credits a deposit once per depositId (transaction hash + log index)', () => {
    const events = run(
      [created],
      deposit(5 * USDC, '0xdead:1'),
      deposit(5 * USDC, '0xdead:1'),
      deposit(USDC, '0xdead:2'),
    );
    expect(events.filter((e) => e.type === 'WalletDepositCredited')).toHaveLength(2);
    expect(wallet(events)).toMatchObject({ balance: 6 * USDC, held: 0 });
  });
});

describe('wallet decider: holds', () => {
  it('places a hold that reduces the available balance, not the balance', () => {
    const events = run(funded, hold('aut-1', 30 * USDC));
    expect(events.at(-1)).toMatchObject({
      type: 'WalletHoldPlaced',
      data: { holdId: 'aut-1', amount: 30 * USDC, balance: 100 * USDC, held: 30 * USDC, overdraft: false },
    });
    expect(availableBalance(wallet(events))).toBe(70 * USDC);
  });

  it('refuses a hold above the available balance with insufficient_funds', () => {
    const events = run(funded, hold('aut-1', 60 * USDC));
    spec
      .given(events)
      .when(hold('aut-2', 41 * USDC))
      .thenThrows('insufficient_funds', /40 USDC/);
  });

  it('lets an authorization slightly above the balance through within the allowance given, going negative', () => {
    const events = run(funded, hold('aut-1', 102 * USDC, { overdraftAllowance: 5 * USDC }));
    expect(events.at(-1)).toMatchObject({ data: { overdraft: true, held: 102 * USDC } });
    expect(availableBalance(wallet(events))).toBe(-2 * USDC);
    spec
      .given(funded)
      .when(hold('aut-1', 106 * USDC, { overdraftAllowance: 5 * USDC }))
      .thenThrows('insufficient_funds');
  });

  it('records a forced (offline) hold whatever the balance and even under a compliance hold', () => {
    const held = run(funded, { type: 'PlaceComplianceHold', data: { reason: 'aml review', now: T1 } });
    const events = run(held, hold('aut-offline', 500 * USDC, { force: true }));
    expect(availableBalance(wallet(events))).toBe(-400 * USDC);
  });

  it('is idempotent per hold id', () => {
    spec
      .given(run(funded, hold('aut-1', 10 * USDC)))
      .when(hold('aut-1', 10 * USDC))
      .thenNothing();
  });

  it('releases a hold back to the available balance, once', () => {
    const events = run(funded, hold('aut-1', 30 * USDC), {
      type: 'ReleaseHold',
      data: { holdId: 'aut-1', now: T1 },
    });
    expect(wallet(events)).toMatchObject({ balance: 100 * USDC, held: 0 });
    spec
      .given(events)
      .when({ type: 'ReleaseHold', data: { holdId: 'aut-1', now: T1 } })
      .thenNothing();
    spec
      .given(events)
      .when(hold('aut-1', 30 * USDC))
      .thenNothing();
  });

  it('settles a hold for less, the rest going back to the available balance', () => {
    const events = run(funded, hold('aut-1', 30 * USDC), {
      type: 'SettleHold',
      data: { holdId: 'aut-1', amount: 25 * USDC, now: T1 },
    });
    expect(wallet(events)).toMatchObject({ balance: 75 * USDC, held: 0 });
    spec
      .given(events)
      .when({ type: 'SettleHold', data: { holdId: 'aut-1', amount: 25 * USDC, now: T1 } })
      .thenNothing();
  });

  it('settles above the hold within the tolerance given, which may take the balance negative (spec part 1, fact 4)', () => {
    const events = run(funded, hold('aut-1', 100 * USDC), {
      type: 'SettleHold',
      data: { holdId: 'aut-1', amount: 103 * USDC, overdraftAllowance: 3 * USDC, now: T1 },
    });
    expect(wallet(events)).toMatchObject({ balance: -3 * USDC, held: 0 });
    spec
      .given(run(funded, hold('aut-1', 100 * USDC)))
      .when({ type: 'SettleHold', data: { holdId: 'aut-1', amount: 103 * USDC, now: T1 } })
      .thenThrows('amount_exceeds_hold', /tolerance of 0 USDC/);
  });

  it('answers not_found for a hold that never existed', () => {
    spec
      .given(funded)
      .when({ type: 'ReleaseHold', data: { holdId: 'aut-x', now: T1 } })
      .thenThrows('not_found');
    spec
      .given(funded)
      .when({ type: 'SettleHold', data: { holdId: 'aut-x', amount: 1, now: T1 } })
      .thenThrows('not_found');
  });

  it('refunds and charges fees once per id; a fee may take the balance negative', () => {
    const events = run(
      [created],
      { type: 'Refund', data: { refundId: 'ref-1', amount: 2 * USDC, now: T1 } },
      { type: 'Refund', data: { refundId: 'ref-1', amount: 2 * USDC, now: T1 } },
      { type: 'ChargeFee', data: { feeId: 'fee-1', amount: 3 * USDC, now: T1 } },
      { type: 'ChargeFee', data: { feeId: 'fee-1', amount: 3 * USDC, now: T1 } },
    );
    expect(wallet(events).balance).toBe(-1 * USDC);
  });

  it('refuses amounts that are not positive integers of minor units', () => {
    spec.given(funded).when(hold('aut-1', 0)).thenThrows('validation_error');
    spec.given(funded).when(hold('aut-1', 1.5)).thenThrows('validation_error');
    spec.given(funded).when(deposit(-1)).thenThrows('validation_error');
  });
});

describe('wallet decider: compliance holds', () => {
  const held = run(funded, { type: 'PlaceComplianceHold', data: { reason: 'sanctions screening', now: T1 } });

  it('blocks spending and withdrawals, naming the reason', () => {
    spec
      .given(held)
      .when(hold('aut-1', USDC))
      .thenThrows('wallet_compliance_hold', /sanctions screening/);
    spec
      .given(held)
      .when({
        type: 'RequestWithdrawal',
        data: { withdrawalId: 'txn-1', amount: USDC, toAddress: '0x1', now: T1 },
      })
      .thenThrows('wallet_compliance_hold');
  });

  it('still credits deposits, and spending resumes once released', () => {
    const events = run(held, deposit(USDC), {
      type: 'ReleaseComplianceHold',
      data: { reason: 'cleared', now: T1 },
    });
    expect(wallet(events)).toMatchObject({ balance: 101 * USDC, complianceHold: null });
    expect(walletDecider.decide(hold('aut-1', USDC), wallet(events))).toHaveLength(1);
  });
});

describe('wallet decider: withdrawals', () => {
  const request = (amount: number): WalletCommand => ({
    type: 'RequestWithdrawal',
    data: { withdrawalId: 'txn-w1', amount, toAddress: '0xto', now: T1 },
  });
  const confirm: WalletCommand = {
    type: 'ConfirmWithdrawal',
    data: { withdrawalId: 'txn-w1', hash: '0xhash', blockHeight: 9, rawTxReceipt: '{}', now: T1 },
  };
  const reject: WalletCommand = {
    type: 'RejectWithdrawal',
    data: { withdrawalId: 'txn-w1', reason: 'reverted', hash: null, now: T1 },
  };

  it('holds the amount while the payout is pending, then debits it once confirmed', () => {
    const requested = run(funded, request(40 * USDC));
    expect(wallet(requested)).toMatchObject({ balance: 100 * USDC, held: 40 * USDC });
    const confirmed = run(requested, confirm, confirm);
    expect(confirmed.filter((e) => e.type === 'WithdrawalConfirmed')).toHaveLength(1);
    expect(wallet(confirmed)).toMatchObject({ balance: 60 * USDC, held: 0 });
  });

  it('frees the amount when the payout is rejected; a late confirmation changes nothing', () => {
    const rejected = run(funded, request(40 * USDC), reject, confirm);
    expect(rejected.at(-1)?.type).toBe('WithdrawalRejected');
    expect(wallet(rejected)).toMatchObject({ balance: 100 * USDC, held: 0 });
  });

  it('refuses a withdrawal above the available balance, with no overdraft', () => {
    const events = run(funded, hold('aut-1', 70 * USDC));
    spec
      .given(events)
      .when(request(31 * USDC))
      .thenThrows('insufficient_funds', /30 USDC/);
  });

  it('cannot settle or release a withdrawal as if it were an authorization hold', () => {
    const requested = run(funded, request(40 * USDC));
    spec
      .given(requested)
      .when({ type: 'ReleaseHold', data: { holdId: 'txn-w1', now: T1 } })
      .thenThrows('not_found');
  });

  describe('payout journal', () => {
    const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const requested = run(funded, {
      type: 'RequestWithdrawal',
      data: { withdrawalId: 'txn-w1', amount: 40 * USDC, toAddress: TO, now: T1 },
    });
    const journal = (
      extra: Partial<Extract<WalletCommand, { type: 'JournalPayout' }>['data']> = {},
    ): WalletCommand => ({
      type: 'JournalPayout',
      data: {
        withdrawalId: 'txn-w1',
        toAddress: TO.toLowerCase(),
        amount: 40 * USDC,
        hash: '0xh1',
        rawTransaction: '0xraw1',
        refusedReason: null,
        now: T1,
        ...extra,
      },
    });
    const signed = (hash: string, rawTransaction: string): WalletEvent => ({
      type: 'WithdrawalPayoutSigned',
      data: {
        walletId: WALLET,
        withdrawalId: 'txn-w1',
        toAddress: TO.toLowerCase(),
        amount: 40 * USDC,
        hash,
        rawTransaction,
        at: T1,
      },
    });
    const refused = (hash: string): WalletEvent => ({
      type: 'WithdrawalPayoutRefused',
      data: { walletId: WALLET, withdrawalId: 'txn-w1', hash, reason: 'no gas', at: T1 },
    });
    const payoutOf = (events: WalletEvent[]) => wallet(events).holds.get('txn-w1');

    it('journals the signed payout of a pending withdrawal once, leaving the ledger as it is', () => {
      spec
        .given(requested)
        .when(journal())
        .then([signed('0xh1', '0xraw1')]);
      const journaled = run(requested, journal(), journal());
      expect(journaled.slice(requested.length)).toEqual([signed('0xh1', '0xraw1')]);
      expect(payoutOf(journaled)).toMatchObject({
        payout: { hash: '0xh1', rawTransaction: '0xraw1', refusedReason: null },
      });
      expect(wallet(journaled)).toMatchObject({ balance: 100 * USDC, held: 40 * USDC });
    });

    it('replaces the entry with a newly signed transaction while the withdrawal is pending', () => {
      const replaced = run(requested, journal(), journal({ hash: '0xh2', rawTransaction: '0xraw2' }));
      expect(replaced.at(-1)).toEqual(signed('0xh2', '0xraw2'));
      expect(payoutOf(replaced)).toMatchObject({ payout: { hash: '0xh2', rawTransaction: '0xraw2' } });
    });

    it('records a refusal by the node once, and a newly signed transaction lifts it', () => {
      const journaled = run(requested, journal());
      spec
        .given(journaled)
        .when(journal({ refusedReason: 'no gas' }))
        .then([refused('0xh1')]);
      const refusedTwice = run(
        journaled,
        journal({ refusedReason: 'no gas' }),
        journal({ refusedReason: 'no gas' }),
      );
      expect(refusedTwice.slice(journaled.length)).toEqual([refused('0xh1')]);
      expect(payoutOf(refusedTwice)).toMatchObject({ payout: { hash: '0xh1', refusedReason: 'no gas' } });
      spec
        .given(requested)
        .when(journal({ refusedReason: 'no gas' }))
        .then([signed('0xh1', '0xraw1'), refused('0xh1')]);
      const resigned = run(refusedTwice, journal({ hash: '0xh2', rawTransaction: '0xraw2' }));
      expect(payoutOf(resigned)).toMatchObject({ payout: { hash: '0xh2', refusedReason: null } });
    });

    it('refuses a payout that does not match the withdrawal, or for no pending withdrawal', () => {
      spec
        .given(requested)
        .when(journal({ amount: 41 * USDC }))
        .thenThrows('validation_error');
      spec
        .given(requested)
        .when(journal({ toAddress: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' }))
        .thenThrows('validation_error');
      spec
        .given(requested)
        .when(journal({ withdrawalId: 'txn-other' }))
        .thenThrows('not_found');
      const confirmed = run(requested, journal(), confirm);
      spec
        .given(confirmed)
        .when(journal())
        .thenThrows('invalid_state_transition', /no longer pending/);
      expect(payoutOf(confirmed)).toBeUndefined();
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// The state itself: immutable between events, and a bounded window of used ids
// ---------------------------------------------------------------------------------------------------

const depositAs = (
  depositId: string,
  amount = USDC,
  extra: { alreadyRecorded?: boolean } = {},
): WalletCommand => {
  const command = deposit(amount, depositId);
  return { ...command, data: { ...command.data, ...extra } } as WalletCommand;
};
const releaseHold = (holdId: string): WalletCommand => ({ type: 'ReleaseHold', data: { holdId, now: T1 } });

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
    const { states } = play([depositAs('d-1'), hold('h-1', 100), depositAs('d-2'), releaseHold('h-1')]);
    const pictures = states.map(snapshot);
    // Fold everything again from each state: none of the earlier states may move.
    play([depositAs('d-3'), hold('h-2', 5), releaseHold('h-2')]);
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
      depositAs('d-1', 5_000_000),
      depositAs('d-1', 5_000_000),
      hold('h-1', 1_000_000),
      hold('h-1', 1_000_000),
      releaseHold('h-1'),
      releaseHold('h-1'),
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
    const { events } = play([depositAs('d-old', 1_000_000, { alreadyRecorded: true })]);
    expect(events.map((e) => e.type)).toEqual(['WalletCreated']);
  });

  it('remembers a bounded window of recent ids, however long the history', () => {
    const count = RECENT_ID_CAPACITY * 3;
    const { events } = play(Array.from({ length: count }, (_, i) => depositAs(`d-${i}`, 1)));
    // Folded from scratch, as a restart would.
    const state = foldEvents(walletDecider, events) as WalletRecord;
    expect(state.balance).toBe(count);
    expect(recentIdCount(state.usedIds)).toBeLessThanOrEqual(RECENT_ID_CAPACITY);
    // The newest ids are remembered (a retry is ignored); the oldest have been let go.
    expect(walletDecider.decide(depositAs(`d-${count - 1}`, 1), state)).toEqual([]);
    expect(hasRecentId(state.usedIds, `d-${count - RECENT_ID_CAPACITY + 200}`)).toBe(true);
    expect(hasRecentId(state.usedIds, 'd-0')).toBe(false);
  });
});
