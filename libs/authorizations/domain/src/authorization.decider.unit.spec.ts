import { deciderSpec } from '@cip/shared/testing';
import type { AuthorizationCommand, DecideAuthorization } from './authorization.commands';
import { authorizationDecider } from './authorization.decider';
import type { AuthorizationCleared, AuthorizationDecided, AuthorizationEvent } from './authorization.events';
import type { AuthorizationFacts } from './decision/authorization-decision.policy';

const spec = deciderSpec(authorizationDecider);

const AUT = 'aut-0b7c1d2e';
const PARTIES = {
  authorizationId: AUT,
  distributorId: 'dst-9f31',
  cardId: 'crd-5d0c',
  userId: 'usr-4b7e',
  walletId: 'wlt-77c1',
};
const MERCHANT = { name: 'Cafe Lumen', city: 'Paris', country: 'FR', mcc: '5812' };
const AT = '2026-11-23T12:00:00.000Z';
const LATER = '2026-11-24T09:00:00.000Z';
const EXPIRES = '2026-11-30T12:00:00.000Z';
const PROGRAM = { fxRates: { EUR: '1.0856' }, fees: { auth: 100_000 }, clearingTolerance: 200_000 };
const USD = 1_000_000;
// 40.00 USD authorized, a 0.10 USD auth fee: 40.10 USD held.
const AMOUNT = 40 * USD;
const FEE = 100_000;

const facts = (overrides: Partial<AuthorizationFacts> = {}): AuthorizationFacts => ({
  request: { merchant: MERCHANT, merchantAmount: 4_000, merchantCurrency: 'USD', at: AT },
  card: { status: 'active', blocks: [], expMonth: 11, expYear: 2029 },
  userStatus: 'active',
  verification: { method: 'cvv2', ok: true },
  controls: { ok: true },
  availableBalance: 100 * USD,
  program: PROGRAM,
  ...overrides,
});

const decideCommand = (
  overrides: Partial<AuthorizationFacts> = {},
  networkKey = 'stan-1',
): DecideAuthorization => ({
  type: 'DecideAuthorization',
  data: { ...PARTIES, networkKey, facts: facts(overrides) },
});

const decided: AuthorizationDecided = {
  type: 'AuthorizationDecided',
  data: {
    ...PARTIES,
    decision: 'confirmed',
    amount: AMOUNT,
    merchantAmount: '40.00',
    merchantCurrency: 'USD',
    fee: { auth: FEE },
    feeTotal: FEE,
    fxRate: null,
    merchant: MERCHANT,
    type: 'payment',
    advice: null,
    originalAuthorizationId: null,
    // 20% of 40.00 USD.
    clearingAllowance: 8 * USD,
    expiresAt: EXPIRES,
    networkKey: 'stan-1',
    decidedAt: AT,
    ledger: [{ op: 'placeHold', holdId: AUT, amount: AMOUNT + FEE }],
  },
};

const clear = (amount: number, networkKey: string, final = false): AuthorizationCommand => ({
  type: 'ClearAuthorization',
  data: { networkKey, amount, final, now: LATER },
});
const reverse = (networkKey: string, amount?: number): AuthorizationCommand => ({
  type: 'ReverseAuthorization',
  data: { networkKey, ...(amount === undefined ? {} : { amount }), now: LATER },
});
const expire = (now = EXPIRES): AuthorizationCommand => ({ type: 'ExpireAuthorization', data: { now } });

// The ledger instructions, as the decider writes them: one operation on the hold per network message,
// under the message's own posting id (`<authorization>.<kind>.<rank of the message>`).
const ALLOWANCE = 8 * USD;
const settle = (amount: number, sequence: number, final: boolean, holdId = AUT) => ({
  op: 'settleHold' as const,
  holdId,
  amount,
  clearingId: `${AUT}.clearing.${sequence}`,
  final,
  overdraftAllowance: ALLOWANCE,
});
const release = (sequence: number, amount?: number, holdId = AUT) => ({
  op: 'releaseHold' as const,
  holdId,
  reversalId: `${AUT}.reversal.${sequence}`,
  ...(amount === undefined ? {} : { amount }),
});
const chargeFees = { op: 'chargeFee' as const, feeId: `${AUT}.fees`, amount: FEE };
/** The fees leave the hold that stays open once they are charged. */
const feesOutOfHold = {
  op: 'releaseHold' as const,
  holdId: AUT,
  reversalId: `${AUT}.fees.released`,
  amount: FEE,
};

const cleared = (
  data: Partial<AuthorizationCleared['data']> & Pick<AuthorizationCleared['data'], 'amount' | 'ledger'>,
): AuthorizationCleared => ({
  type: 'AuthorizationCleared',
  data: {
    authorizationId: AUT,
    clearedTotal: data.amount,
    remaining: 0,
    released: 0,
    late: false,
    holdId: null,
    networkKey: 'clr-1',
    at: LATER,
    ...data,
  },
});

const stateAfter = (events: AuthorizationEvent[]) =>
  events.reduce(authorizationDecider.evolve, authorizationDecider.initialState());
const run = (history: AuthorizationEvent[], command: AuthorizationCommand) => [
  ...history,
  ...authorizationDecider.decide(command, stateAfter(history)),
];

describe('deciding', () => {
  it('confirms with a hold of the amount and fees, the tip allowance and the 7-day expiry', () => {
    spec.given([]).when(decideCommand()).then([decided]);
    expect(stateAfter([decided])).toMatchObject({ status: 'confirmed', remaining: AMOUNT, holdId: AUT });
  });

  it('keeps the program window when it sets one', () => {
    const [event] = authorizationDecider.decide(
      decideCommand({ program: { ...PROGRAM, holdExpiryDays: 3 } }),
      authorizationDecider.initialState(),
    );
    expect(event.data).toMatchObject({ expiresAt: '2026-11-26T12:00:00.000Z' });
  });

  it('records a rejection with its reason and nothing for the ledger', () => {
    const [event] = authorizationDecider.decide(decideCommand({ availableBalance: 0 }), { status: 'absent' });
    expect(event.data).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'insufficientFund',
      expiresAt: null,
      clearingAllowance: 0,
      ledger: [],
    });
    expect(stateAfter([event])).toMatchObject({ status: 'rejected', holdId: null, remaining: 0 });
  });

  it('records a stand-in advice with a forced hold', () => {
    const advice = decideCommand({
      availableBalance: -1,
      request: { ...facts().request, advice: 'stand_in' },
    });
    const [event] = authorizationDecider.decide(advice, { status: 'absent' });
    expect(event.data).toMatchObject({
      decision: 'confirmed',
      advice: 'stand_in',
      ledger: [{ op: 'placeHold', holdId: AUT, amount: AMOUNT + FEE, force: true }],
    });
  });

  it('changes nothing when the network retries the same message', () => {
    spec.given([decided]).when(decideCommand()).thenNothing();
  });

  it('refuses another message deciding an authorization that exists', () => {
    spec
      .given([decided])
      .when(decideCommand({}, 'stan-2'))
      .thenThrows('invalid_state_transition', /exists already/);
  });
});

describe('clearing', () => {
  it('clears in full: one final clearing of the hold, and the fees charged', () => {
    spec
      .given([decided])
      .when(clear(AMOUNT, 'clr-1'))
      .then([cleared({ amount: AMOUNT, ledger: [settle(AMOUNT, 1, true), chargeFees] })]);
    expect(stateAfter(run([decided], clear(AMOUNT, 'clr-1')))).toMatchObject({
      status: 'cleared',
      holdId: null,
    });
  });

  it('clears partially: a partial clearing keeps the rest on the same hold, the fees charged once and out of it', () => {
    const partial = cleared({
      amount: 15 * USD,
      remaining: 25 * USD,
      holdId: AUT,
      ledger: [settle(15 * USD, 1, false), chargeFees, feesOutOfHold],
    });
    spec
      .given([decided])
      .when(clear(15 * USD, 'clr-1'))
      .then([partial]);
    expect(stateAfter([decided, partial])).toMatchObject({
      status: 'partially_cleared',
      remaining: 25 * USD,
    });
  });

  it('takes multiple partial clearings of the one hold, each under its own id, the last one final', () => {
    let history = run([decided], clear(15 * USD, 'clr-1'));
    history = run(history, clear(20 * USD, 'clr-2'));
    expect(history.at(-1)!.data).toEqual(
      expect.objectContaining({
        clearedTotal: 35 * USD,
        remaining: 5 * USD,
        holdId: AUT,
        ledger: [settle(20 * USD, 2, false)],
      }),
    );
    history = run(history, clear(5 * USD, 'clr-3'));
    expect(history.at(-1)!.data).toEqual(
      expect.objectContaining({
        clearedTotal: AMOUNT,
        remaining: 0,
        holdId: null,
        ledger: [settle(5 * USD, 3, true)],
      }),
    );
    expect(stateAfter(history)).toMatchObject({ status: 'cleared', cleared: AMOUNT, holdId: null });
  });

  it('releases the rest when the network marks a partial clearing final', () => {
    const [event] = authorizationDecider.decide(clear(30 * USD, 'clr-1', true), stateAfter([decided]));
    expect(event.data).toEqual(
      expect.objectContaining({
        remaining: 0,
        released: 10 * USD,
        ledger: [settle(30 * USD, 1, true), chargeFees],
      }),
    );
    expect(stateAfter([decided, event])).toMatchObject({ status: 'cleared', cleared: 30 * USD });
  });

  it('clears above the hold within the tip tolerance (the balance may go negative)', () => {
    const [event] = authorizationDecider.decide(clear(48 * USD, 'clr-1'), stateAfter([decided]));
    expect(event.data).toEqual(
      expect.objectContaining({ amount: 48 * USD, ledger: [settle(48 * USD, 1, true), chargeFees] }),
    );
  });

  it('refuses a clearing beyond the tolerance, even spread over partial clearings', () => {
    spec
      .given([decided])
      .when(clear(48 * USD + 1, 'clr-1'))
      .thenThrows('invalid_state_transition', /tolerance of 8000000/);
    const history = run([decided], clear(30 * USD, 'clr-1'));
    spec
      .given(history)
      .when(clear(18 * USD + 1, 'clr-2'))
      .thenThrows('invalid_state_transition', /at most 18000000/);
  });

  it('changes nothing when the same clearing arrives again', () => {
    spec
      .given(run([decided], clear(15 * USD, 'clr-1')))
      .when(clear(15 * USD, 'clr-1'))
      .thenNothing();
  });

  it('refuses a clearing of a rejected, reversed or already cleared authorization, or of a refund', () => {
    const [rejected] = authorizationDecider.decide(decideCommand({ availableBalance: 0 }), {
      status: 'absent',
    });
    spec
      .given([rejected])
      .when(clear(USD, 'clr-1'))
      .thenThrows('invalid_state_transition', /rejected/);
    spec
      .given(run([decided], reverse('rev-1')))
      .when(clear(USD, 'clr-1'))
      .thenThrows('invalid_state_transition', /reversed/);
    spec
      .given(run([decided], clear(AMOUNT, 'clr-1')))
      .when(clear(USD, 'clr-2'))
      .thenThrows('invalid_state_transition', /cleared already/);
    spec
      .given(refunded)
      .when(clear(USD, 'clr-1'))
      .thenThrows('invalid_state_transition', /refund/);
  });

  it('refuses a clearing of nothing, a negative or fractional amount, or of an unknown authorization', () => {
    spec.given([decided]).when(clear(0, 'clr-1')).thenThrows('validation_error');
    spec.given([decided]).when(clear(-5, 'clr-1')).thenThrows('validation_error');
    spec.given([decided]).when(clear(1.5, 'clr-1')).thenThrows('validation_error');
    spec.given([]).when(clear(USD, 'clr-1')).thenThrows('not_found');
  });

  it('debits a clearing that arrives after the hold expired as a force post, with the fees', () => {
    const history = run([decided], expire());
    spec
      .given(history)
      .when(clear(AMOUNT, 'clr-late'))
      .then([
        cleared({
          amount: AMOUNT,
          late: true,
          networkKey: 'clr-late',
          ledger: [{ op: 'forcePost', postingId: `${AUT}.clearing.1`, amount: AMOUNT }, chargeFees],
        }),
      ]);
    expect(stateAfter(run(history, clear(AMOUNT, 'clr-late')))).toMatchObject({ status: 'cleared' });
  });
});

describe('reversing', () => {
  it('reverses in full: releases the hold, fees included', () => {
    const history = run([decided], reverse('rev-1'));
    expect(history.at(-1)).toEqual({
      type: 'AuthorizationReversed',
      data: {
        authorizationId: AUT,
        amount: AMOUNT,
        reversedTotal: AMOUNT,
        remaining: 0,
        holdId: null,
        networkKey: 'rev-1',
        at: LATER,
        ledger: [release(1)],
      },
    });
    expect(stateAfter(history)).toMatchObject({ status: 'reversed', holdId: null });
  });

  it('reverses partially: releases that much of the hold (the uncharged fees stay held), and stays confirmed', () => {
    const history = run([decided], reverse('rev-1', 10 * USD));
    expect(history.at(-1)!.data).toEqual(
      expect.objectContaining({ remaining: 30 * USD, holdId: AUT, ledger: [release(1, 10 * USD)] }),
    );
    expect(stateAfter(history)).toMatchObject({ status: 'confirmed', reversed: 10 * USD });
    // What is left then clears from the same hold, within the tolerance of what was not reversed.
    const after = run(history, clear(30 * USD, 'clr-1'));
    expect(after.at(-1)!.data).toEqual(
      expect.objectContaining({ ledger: [settle(30 * USD, 2, true), chargeFees] }),
    );
    spec
      .given(history)
      .when(clear(38 * USD + 1, 'clr-1'))
      .thenThrows('invalid_state_transition');
  });

  it('leaves a partially cleared authorization cleared when the rest is reversed', () => {
    const history = run(run([decided], clear(15 * USD, 'clr-1')), reverse('rev-1'));
    // All that remains: a full reversal (no amount), which closes the hold.
    expect(history.at(-1)!.data).toEqual(
      expect.objectContaining({ amount: 25 * USD, holdId: null, ledger: [release(2)] }),
    );
    expect(stateAfter(history)).toMatchObject({ status: 'cleared', cleared: 15 * USD, reversed: 25 * USD });
  });

  it('refuses a reversal above what is held, or when nothing is held', () => {
    spec
      .given([decided])
      .when(reverse('rev-1', AMOUNT + 1))
      .thenThrows('invalid_state_transition', /only 40000000/);
    spec
      .given(run([decided], clear(AMOUNT, 'clr-1')))
      .when(reverse('rev-1'))
      .thenThrows('invalid_state_transition', /nothing is held/);
    spec
      .given(run([decided], expire()))
      .when(reverse('rev-1'))
      .thenThrows('invalid_state_transition', /expired/);
    spec
      .given(refunded)
      .when(reverse('rev-1'))
      .thenThrows('invalid_state_transition', /refund/);
    spec.given([decided]).when(reverse('rev-1', 0)).thenThrows('validation_error');
  });

  it('changes nothing when the same reversal arrives again', () => {
    spec
      .given(run([decided], reverse('rev-1', USD)))
      .when(reverse('rev-1', USD))
      .thenNothing();
  });
});

describe('expiring', () => {
  it('releases an uncleared hold once the window has passed, and not a millisecond before', () => {
    spec
      .given([decided])
      .when(expire('2026-11-30T11:59:59.999Z'))
      .thenThrows('invalid_state_transition', /before/);
    spec
      .given([decided])
      .when(expire())
      .then([
        {
          type: 'AuthorizationExpired',
          data: {
            authorizationId: AUT,
            amount: AMOUNT,
            at: EXPIRES,
            ledger: [{ op: 'expireHold', holdId: AUT }],
          },
        },
      ]);
    expect(stateAfter(run([decided], expire()))).toMatchObject({ status: 'expired', holdId: null });
  });

  it('releases the uncleared rest of a partially cleared authorization, which stays cleared', () => {
    const history = run(run([decided], clear(15 * USD, 'clr-1')), expire());
    expect(history.at(-1)!.data).toEqual(
      expect.objectContaining({ amount: 25 * USD, ledger: [{ op: 'expireHold', holdId: AUT }] }),
    );
    expect(stateAfter(history)).toMatchObject({ status: 'cleared' });
  });

  it('changes nothing once nothing is held (cleared, reversed, expired already)', () => {
    spec
      .given(run([decided], clear(AMOUNT, 'clr-1')))
      .when(expire())
      .thenNothing();
    spec
      .given(run([decided], reverse('rev-1')))
      .when(expire())
      .thenNothing();
    spec
      .given(run([decided], expire()))
      .when(expire())
      .thenNothing();
  });

  it('refuses to expire a rejected authorization or an unknown one', () => {
    const [rejected] = authorizationDecider.decide(decideCommand({ availableBalance: 0 }), {
      status: 'absent',
    });
    spec
      .given([rejected])
      .when(expire())
      .thenThrows('invalid_state_transition', /rejected/);
    spec.given([]).when(expire()).thenThrows('not_found');
  });
});

const refundCommand = (originalAuthorizationId?: string, networkKey = 'ref-1'): AuthorizationCommand => ({
  type: 'RefundAuthorization',
  data: {
    ...PARTIES,
    networkKey,
    charge: { merchant: MERCHANT, merchantAmount: 1_000, merchantCurrency: 'EUR' },
    ...(originalAuthorizationId ? { originalAuthorizationId } : {}),
    pricing: { ...PROGRAM, fees: { auth: FEE, fxRate: 20_000 } },
    now: LATER,
  },
});
const refunded = authorizationDecider.decide(refundCommand('aut-original'), { status: 'absent' });

describe('refunds', () => {
  it('records a refund of a named payment as a confirmed refund to credit, without fees; cleared once credited', () => {
    expect(refunded).toEqual([
      {
        type: 'AuthorizationDecided',
        data: expect.objectContaining({
          type: 'refund',
          decision: 'confirmed',
          originalAuthorizationId: 'aut-original',
          // 10.00 EUR at 1.0856 = 10.856 USD -> 10.86 USD.
          amount: 10_860_000,
          merchantAmount: '10.00',
          fee: {},
          expiresAt: null,
          ledger: [{ op: 'refund', refundId: AUT, amount: 10_860_000 }],
        }),
      },
    ]);
    const credited = authorizationDecider.decide(
      { type: 'RecordRefundCredit', data: { credited: true, now: LATER } },
      stateAfter(refunded),
    );
    expect(credited).toEqual([
      expect.objectContaining({
        type: 'AuthorizationCleared',
        data: expect.objectContaining({ amount: 10_860_000, clearedTotal: 10_860_000, ledger: [] }),
      }),
    ]);
    expect(stateAfter([...refunded, ...credited])).toMatchObject({ status: 'cleared', type: 'refund' });
    // Recorded once.
    spec
      .given([...refunded, ...credited])
      .when({ type: 'RecordRefundCredit', data: { credited: true, now: LATER } })
      .thenNothing();
  });

  it('rejects a refund whose credit the ledger refused, claiming no credit', () => {
    const refused = authorizationDecider.decide(
      {
        type: 'RecordRefundCredit',
        data: { credited: false, reason: 'amount_too_large: beyond', now: LATER },
      },
      stateAfter(refunded),
    );
    expect(refused).toEqual([
      {
        type: 'AuthorizationCreditRefused',
        data: { authorizationId: AUT, amount: 10_860_000, reason: 'amount_too_large: beyond', at: LATER },
      },
    ]);
    expect(stateAfter([...refunded, ...refused])).toMatchObject({ status: 'rejected' });
    spec
      .given([...refunded, ...refused])
      .when({ type: 'RecordRefundCredit', data: { credited: true, now: LATER } })
      .thenNothing();
  });

  it('counts refunds against what their payment cleared and was not refunded, once each; gives one back', () => {
    const cleared = run([decided], clear(30 * USD, 'clr-1'));
    const reserve = (id: string, amount: number): AuthorizationCommand => ({
      type: 'ReserveRefund',
      data: { refundAuthorizationId: id, amount, now: LATER },
    });
    const first = run(cleared, reserve('aut-r1', 20 * USD));
    expect(stateAfter(first)).toMatchObject({ refunded: 20 * USD });
    spec
      .given(first)
      .when(reserve('aut-r1', 20 * USD))
      .thenNothing();
    spec
      .given(first)
      .when(reserve('aut-r2', 10 * USD + 1))
      .thenThrows('invalid_state_transition', /refund exceeds/);
    const second = run(first, reserve('aut-r2', 10 * USD));
    expect(stateAfter(second)).toMatchObject({ refunded: 30 * USD });
    const released = run(second, {
      type: 'ReleaseRefund',
      data: { refundAuthorizationId: 'aut-r1', now: LATER },
    });
    expect(stateAfter(released)).toMatchObject({ refunded: 10 * USD });
    // Nothing cleared (a payment reversed whole): nothing to refund against it.
    const reversed = run([decided], reverse('rev-1'));
    spec
      .given(reversed)
      .when(reserve('aut-r3', 1))
      .thenThrows('invalid_state_transition', /0 refundable/);
  });

  it('records a refund without an original authorization', () => {
    const events = authorizationDecider.decide(refundCommand(), { status: 'absent' });
    expect(events[0].data).toMatchObject({ type: 'refund', originalAuthorizationId: null });
  });

  it('changes nothing on a retry; refuses a refund it cannot price or timed out of the spec format', () => {
    spec.given(refunded).when(refundCommand('aut-original')).thenNothing();
    spec.given(refunded).when(refundCommand('aut-original', 'ref-2')).thenThrows('invalid_state_transition');
    const noRate = refundCommand();
    if (noRate.type === 'RefundAuthorization') noRate.data.charge.merchantCurrency = 'GBP';
    spec
      .given([])
      .when(noRate)
      .thenThrows('validation_error', /no fx rate for GBP/);
    const badTime = refundCommand();
    if (badTime.type === 'RefundAuthorization') badTime.data.now = '2026-11-24T09:00:00Z';
    spec
      .given([])
      .when(badTime)
      .thenThrows('validation_error', /YYYY-MM-DDTHH:mm:ss.sssZ/);
  });
});

describe('force-posted clearings (no authorization)', () => {
  const forcePost = (networkKey = 'fp-1'): AuthorizationCommand => ({
    type: 'ForcePostClearing',
    data: {
      ...PARTIES,
      networkKey,
      charge: { merchant: { ...MERCHANT, mcc: '6011' }, merchantAmount: 2_000, merchantCurrency: 'USD' },
      pricing: { fxRates: {}, fees: { auth: FEE, atm: 2_500_000 } },
      now: LATER,
    },
  });

  it('debits through one force post, with the ATM fee but no auth fee', () => {
    const events = authorizationDecider.decide(forcePost(), { status: 'absent' });
    expect(events).toEqual([
      expect.objectContaining({
        type: 'AuthorizationForcePosted',
        data: expect.objectContaining({ amount: 20 * USD, fee: { atm: 2_500_000 }, feeTotal: 2_500_000 }),
      }),
      expect.objectContaining({
        type: 'AuthorizationCleared',
        data: expect.objectContaining({
          late: true,
          ledger: [
            { op: 'forcePost', postingId: AUT, amount: 20 * USD },
            { op: 'chargeFee', feeId: `${AUT}.fees`, amount: 2_500_000 },
          ],
        }),
      }),
    ]);
    expect(stateAfter(events)).toMatchObject({ status: 'cleared', cleared: 20 * USD });
    spec.given(events).when(forcePost()).thenNothing();
    spec.given(events).when(clear(1, 'clr-2')).thenThrows('invalid_state_transition');
  });
});

describe('partial clearings and partial reversals of one hold', () => {
  it('reverses part of what a partial clearing left held, then clears the rest within the tolerance of what was not reversed', () => {
    let history = run([decided], clear(15 * USD, 'clr-1'));
    history = run(history, reverse('rev-1', 5 * USD));
    expect(history.at(-1)!.data).toEqual(
      expect.objectContaining({
        amount: 5 * USD,
        reversedTotal: 5 * USD,
        remaining: 20 * USD,
        holdId: AUT,
        ledger: [release(2, 5 * USD)],
      }),
    );
    expect(stateAfter(history)).toMatchObject({
      status: 'partially_cleared',
      cleared: 15 * USD,
      reversed: 5 * USD,
      remaining: 20 * USD,
    });
    // 40 authorized, 15 cleared, 5 reversed: 20 more and the 8 of tolerance may still clear.
    spec
      .given(history)
      .when(clear(28 * USD + 1, 'clr-2'))
      .thenThrows('invalid_state_transition', /at most 28000000/);
    history = run(history, clear(28 * USD, 'clr-2'));
    expect(history.at(-1)!.data).toEqual(
      expect.objectContaining({
        clearedTotal: 43 * USD,
        remaining: 0,
        holdId: null,
        ledger: [settle(28 * USD, 3, true)],
      }),
    );
  });

  it('gives every message its own posting id, so each retry finds its own posting', () => {
    let history = run([decided], clear(10 * USD, 'clr-1'));
    history = run(history, reverse('rev-1', 5 * USD));
    history = run(history, clear(10 * USD, 'clr-2'));
    history = run(history, clear(10 * USD, 'clr-3'));
    const ids = history
      .flatMap((event) => ('ledger' in event.data ? event.data.ledger : []))
      .map((step) =>
        step.op === 'settleHold' ? step.clearingId : step.op === 'releaseHold' ? step.reversalId : step.op,
      );
    expect(ids).toEqual([
      'placeHold',
      `${AUT}.clearing.1`,
      'chargeFee',
      `${AUT}.fees.released`,
      `${AUT}.reversal.2`,
      `${AUT}.clearing.3`,
      `${AUT}.clearing.4`,
    ]);
  });
});

describe('an authorization abandoned by the unrecorded-hold sweep (a hold placed, no decision recorded in time)', () => {
  const PLACED = '2026-11-23T11:58:00.000Z';
  const abandon: AuthorizationCommand = {
    type: 'AbandonAuthorization',
    data: { authorizationId: AUT, walletId: PARTIES.walletId, holdId: AUT, placedAt: PLACED, now: AT },
  };
  const abandoned: AuthorizationEvent = {
    type: 'AuthorizationAbandoned',
    data: {
      authorizationId: AUT,
      walletId: PARTIES.walletId,
      holdId: AUT,
      placedAt: PLACED,
      at: AT,
      ledger: [{ op: 'releaseHold', holdId: AUT, reversalId: AUT }],
    },
  };

  it('is recorded on a stream without a decision, releasing the hold under the reversal id the network would use', () => {
    spec.given([]).when(abandon).then([abandoned]);
  });

  it('changes nothing once a decision was recorded, or once abandoned', () => {
    spec.given([decided]).when(abandon).thenNothing();
    spec.given([abandoned]).when(abandon).thenNothing();
  });

  it('declines a decision that comes after it, with no hold', () => {
    const [event] = authorizationDecider.decide(
      decideCommand(),
      [abandoned].reduce(authorizationDecider.evolve, authorizationDecider.initialState()),
    );
    expect(event).toMatchObject({
      type: 'AuthorizationDecided',
      data: { decision: 'rejected', declineReasonCode: 'other', ledger: [] },
    });
  });

  it('records a stand-in advice that comes after it, its forced hold under an id the wallet has not seen closed', () => {
    const state = [abandoned].reduce(authorizationDecider.evolve, authorizationDecider.initialState());
    const events = authorizationDecider.decide(
      decideCommand({
        request: {
          merchant: MERCHANT,
          merchantAmount: 4_000,
          merchantCurrency: 'USD',
          at: AT,
          advice: 'stand_in',
        },
      }),
      state,
    );
    expect(events).toMatchObject([
      {
        type: 'AuthorizationDecided',
        data: {
          decision: 'confirmed',
          ledger: [{ op: 'placeHold', holdId: `${AUT}.advice`, amount: AMOUNT + FEE, force: true }],
        },
      },
    ]);
    const record = events.reduce(authorizationDecider.evolve, state);
    expect(record).toMatchObject({ status: 'confirmed', holdId: `${AUT}.advice`, remaining: AMOUNT });
  });
});
