import { DomainError } from '@cip/shared/contracts';
import type { AuthorizationCommand } from './authorization.commands';
import { authorizationDecider } from './authorization.decider';
import type { AuthorizationEvent } from './authorization.events';
import type { LedgerInstruction } from './authorization.ledger';
import { isAuthorization, type AuthorizationState } from './authorization.state';
import { seededRandom } from './testing/seeded-random';

// Random lifecycles (decision, partial and final clearings, clearings above the hold within the
// tolerance, partial and full reversals, expiry, late clearings, retries), with every event's ledger
// instructions carried out on a model of the wallet ledger that behaves as `WalletLedger` does (partial
// clearings and reversals on an open hold, each once per posting id; a final clearing, a full reversal or
// an expiry closes it; clearings bounded by the hold's amount net of its reversals plus the tolerance; a
// posting the ledger has not seen on a closed hold refused). The service carries out an event's list after
// the append, after the lists of the events before it (`run`): it may die before, and the next message,
// or the retry, runs them all again in order. After every step the wallet must hold exactly what the
// authorization says is held, and have been debited exactly what cleared plus the fees once: no minor
// unit lost or made up, whatever the crashes.

interface ModelHold {
  amount: number;
  authorized: number;
  cleared: number;
  released: number;
  postings: Set<string>;
}

class LedgerModel {
  balance = 0;
  readonly holds = new Map<string, ModelHold>();
  private readonly used = new Set<string>();

  apply(step: LedgerInstruction): void {
    switch (step.op) {
      case 'placeHold':
        if (this.holds.has(step.holdId) || this.used.has(step.holdId)) return;
        this.holds.set(step.holdId, {
          amount: step.amount,
          authorized: step.amount,
          cleared: 0,
          released: 0,
          postings: new Set(),
        });
        return;
      case 'settleHold': {
        const hold = this.open(step.holdId, step.clearingId);
        if (!hold) return;
        if (hold.cleared + step.amount > hold.authorized - hold.released + step.overdraftAllowance)
          throw new Error(`amount_exceeds_hold: ${JSON.stringify(step)}`);
        const freed = step.final ? hold.amount : Math.min(step.amount, hold.amount);
        this.balance -= step.amount;
        hold.cleared += step.amount;
        this.close(step.holdId, hold, freed, step.clearingId, !step.final);
        return;
      }
      case 'releaseHold': {
        const hold = this.open(step.holdId, step.reversalId);
        if (!hold) return;
        const amount = step.amount ?? hold.amount;
        if (amount > hold.amount) throw new Error(`amount_exceeds_hold: ${JSON.stringify(step)}`);
        hold.released += amount;
        this.close(step.holdId, hold, amount, step.reversalId, hold.amount - amount > 0);
        return;
      }
      case 'expireHold': {
        const hold = this.open(step.holdId, step.holdId);
        if (hold) this.close(step.holdId, hold, hold.amount, step.holdId, false);
        return;
      }
      case 'forcePost':
      case 'chargeFee':
      case 'refund': {
        const id =
          step.op === 'forcePost' ? step.postingId : step.op === 'chargeFee' ? step.feeId : step.refundId;
        if (this.used.has(id)) return;
        this.used.add(id);
        this.balance += step.op === 'refund' ? step.amount : -step.amount;
        return;
      }
    }
  }

  /** The open hold a posting applies to; null for a posting seen before. */
  private open(holdId: string, postingId: string): ModelHold | null {
    const hold = this.holds.get(holdId);
    const seen = postingId !== holdId && this.used.has(postingId);
    if (hold) return hold.postings.has(postingId) || seen ? null : hold;
    if (this.used.has(holdId) && (postingId === holdId || seen)) return null;
    throw new Error(
      `the ledger refuses ${postingId} on hold ${holdId}: ${this.used.has(holdId) ? 'closed' : 'not found'}`,
    );
  }

  private close(holdId: string, hold: ModelHold, freed: number, postingId: string, stays: boolean): void {
    hold.amount -= freed;
    if (postingId !== holdId) this.used.add(postingId);
    if (stays) {
      hold.postings.add(postingId);
      return;
    }
    this.holds.delete(holdId);
    this.used.add(holdId);
  }

  get held(): number {
    return [...this.holds.values()].reduce((sum, hold) => sum + hold.amount, 0);
  }
}

const AUT = 'aut-prop';
const NOW = '2026-11-23T12:00:00.000Z';
const AFTER_EXPIRY = '2026-12-01T12:00:00.000Z';

it('keeps the wallet exactly in step with the authorization over 2,000 random lifecycles, through crashes', () => {
  const random = seededRandom(12);
  for (let round = 0; round < 2000; round++) {
    const ledger = new LedgerModel();
    let state: AuthorizationState = authorizationDecider.initialState();
    const sent: AuthorizationCommand[] = [];
    /** Every event's list, in stream order; `pending`: the service died before carrying out the last ones. */
    const log: LedgerInstruction[][] = [];
    let pending = false;
    const runAll = () => {
      for (const steps of log) for (const step of steps) ledger.apply(step);
      pending = false;
    };
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
        log.push((event.data as { ledger?: LedgerInstruction[] }).ledger ?? []);
      }
      // A retried message appends nothing and runs the stream's lists again; a third of the time the service dies after the append, before the ledger; otherwise it carries
      // out the stream's lists in order (those before the new events first), now and then twice.
      if (events.length > 0 && random.next() < 0.33) {
        pending = true;
        return;
      }
      runAll();
      if (random.next() < 0.3) runAll();
      expectInStep();
    };
    const expectInStep = () => {
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
      // Up to 30% above the authorized amount: tips within the tolerance and beyond it.
      const part = random.int(1, Math.max(Math.ceil((amount * 1.3) / 10_000), 1)) * 10_000;
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

    // The network retries what got no answer: the whole stream runs again.
    if (pending) runAll();
    expectInStep();
    if (!isAuthorization(state)) throw new Error('the decision was not recorded');
    // Nothing beyond the authorized amount clears but the program's tolerance.
    expect(state.cleared + state.reversed).toBeLessThanOrEqual(state.amount + state.clearingAllowance);
    if (state.holdId !== null) expect(state.cleared + state.reversed + state.remaining).toBe(state.amount);
  }
});
