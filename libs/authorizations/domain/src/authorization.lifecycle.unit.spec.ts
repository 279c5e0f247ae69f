import { DomainError } from '@cip/shared/contracts';
import type { AuthorizationCommand } from './authorization.commands';
import { authorizationDecider } from './authorization.decider';
import type { AuthorizationEvent } from './authorization.events';
import type { LedgerInstruction } from './authorization.ledger';
import { isAuthorization, type AuthorizationState } from './authorization.state';
import { seededRandom } from './testing/seeded-random';

// Random lifecycles (decision, partial and final clearings, reversals, expiry, late clearings, retries),
// with every event's ledger instructions carried out on a model of the wallet ledger that behaves as
// `WalletLedger` does (a hold is settled or released whole; ids are idempotent). After every step the
// wallet must hold exactly what the authorization says is held, and have been debited exactly what cleared
// plus the fees once: no minor unit lost or made up, whatever the order.

class LedgerModel {
  balance = 0;
  readonly holds = new Map<string, number>();
  private readonly used = new Set<string>();

  apply(step: LedgerInstruction): void {
    switch (step.op) {
      case 'placeHold':
        if (this.used.has(step.holdId)) return;
        this.used.add(step.holdId);
        this.holds.set(step.holdId, step.amount);
        return;
      case 'settleHold':
      case 'releaseHold': {
        if (!this.holds.has(step.holdId)) {
          if (this.used.has(step.holdId)) return;
          throw new Error(`no hold ${step.holdId}`);
        }
        this.holds.delete(step.holdId);
        if (step.op === 'settleHold') this.balance -= step.amount;
        return;
      }
      case 'chargeFee':
        if (this.used.has(step.feeId)) return;
        this.used.add(step.feeId);
        this.balance -= step.amount;
        return;
      case 'refund':
        if (this.used.has(step.refundId)) return;
        this.used.add(step.refundId);
        this.balance += step.amount;
        return;
    }
  }

  get held(): number {
    return [...this.holds.values()].reduce((sum, amount) => sum + amount, 0);
  }
}

const AUT = 'aut-prop';
const NOW = '2026-11-23T12:00:00.000Z';
const AFTER_EXPIRY = '2026-12-01T12:00:00.000Z';

it('keeps the wallet exactly in step with the authorization over 2,000 random lifecycles', () => {
  const random = seededRandom(12);
  for (let round = 0; round < 2000; round++) {
    const ledger = new LedgerModel();
    let state: AuthorizationState = authorizationDecider.initialState();
    const sent: AuthorizationCommand[] = [];
    const apply = (command: AuthorizationCommand) => {
      let events: AuthorizationEvent[];
      try {
        events = authorizationDecider.decide(command, state);
      } catch (error) {
        // Refusals are allowed (a clearing above the tolerance, a reversal of nothing): they change nothing.
        if (!(error instanceof DomainError)) throw error;
        return;
      }
      for (const event of events) {
        state = authorizationDecider.evolve(state, event);
        // Half the time the service dies after the append and runs the whole list again.
        const steps = (event.data as { ledger?: LedgerInstruction[] }).ledger ?? [];
        for (const step of steps) ledger.apply(step);
        if (random.next() < 0.5) for (const step of steps) ledger.apply(step);
      }
    };

    const amount = random.int(0, 5_000) * 10_000;
    const fee = random.pick([0, 100_000, 2_170_000]);
    apply({
      type: 'DecideAuthorization',
      data: {
        authorizationId: AUT,
        distributorId: 'dst-1',
        cardId: 'crd-1',
        userId: 'usr-1',
        walletId: 'wlt-1',
        networkKey: 'decide',
        facts: {
          request: {
            merchant: { name: 'M', city: 'C', country: 'US', mcc: '5812' },
            merchantAmount: amount / 10_000,
            merchantCurrency: 'USD',
            at: NOW,
          },
          card: { status: 'active', blocks: [], expMonth: 1, expYear: 2030 },
          userStatus: 'active',
          verification: null,
          controls: { ok: true },
          availableBalance: Number.MAX_SAFE_INTEGER,
          program: { fxRates: {}, fees: { auth: fee }, clearingTolerance: random.pick([0, 200_000]) },
        },
      },
    });

    for (let step = 0; step < random.int(1, 8); step++) {
      const key = `msg-${random.int(0, 6)}`; // repeated keys are network retries
      const part = random.int(1, Math.max(amount / 10_000, 1)) * 10_000;
      const roll = random.next();
      const command: AuthorizationCommand =
        roll < 0.45
          ? {
              type: 'ClearAuthorization',
              data: { networkKey: key, amount: part, final: random.next() < 0.3, now: NOW },
            }
          : roll < 0.8
            ? {
                type: 'ReverseAuthorization',
                data: { networkKey: key, ...(random.next() < 0.5 ? { amount: part } : {}), now: NOW },
              }
            : { type: 'ExpireAuthorization', data: { now: AFTER_EXPIRY } };
      sent.push(command);
      apply(command);
    }

    if (!isAuthorization(state)) throw new Error('the decision was not recorded');
    const pendingFees = state.feesCharged ? 0 : state.feeTotal;
    const expectedHeld = state.holdId === null ? 0 : state.remaining + pendingFees;
    const context = JSON.stringify({ round, state, sent });
    expect({ held: ledger.held, context }).toEqual({ held: expectedHeld, context });
    expect({ balance: ledger.balance, context }).toEqual({
      balance: 0 - state.cleared - (state.feesCharged ? state.feeTotal : 0),
      context,
    });
    expect([...ledger.holds.keys()]).toEqual(state.holdId === null ? [] : [state.holdId]);
    // Nothing beyond the authorized amount clears but the program's tolerance.
    expect(state.cleared + state.reversed).toBeLessThanOrEqual(state.amount + state.clearingAllowance);
    if (state.holdId !== null) expect(state.cleared + state.reversed + state.remaining).toBe(state.amount);
  }
});
