import { authorizationDecider } from './authorization.decider';
import { authorizationEvents, type AuthorizationEvent } from './authorization.events';

// Events recorded before the wallet ledger had partial operations (a stream of an upgraded embedded
// runtime): their ledger lists still run when the event is re-executed, as the calls they made then.

const AUT = 'aut-0ld5e7a1';
const USD = 1_000_000;
const at = '2026-11-20T10:00:00.000Z';

/** As the old form wrote them: decided, cleared in part (the rest kept under `.1`), then expired. */
const stored = [
  {
    type: 'AuthorizationDecided',
    data: {
      authorizationId: AUT,
      distributorId: 'dst-1',
      cardId: 'crd-1',
      userId: 'usr-1',
      walletId: 'wlt-1',
      decision: 'confirmed',
      amount: 40 * USD,
      merchantAmount: '40.00',
      merchantCurrency: 'USD',
      fee: { auth: 100_000 },
      feeTotal: 100_000,
      fxRate: null,
      merchant: { name: 'Cafe', city: 'Paris', country: 'FR', mcc: '5812' },
      type: 'payment',
      advice: null,
      originalAuthorizationId: null,
      clearingAllowance: 8 * USD,
      expiresAt: '2026-11-27T10:00:00.000Z',
      networkKey: 'stan-1',
      decidedAt: at,
      ledger: [{ op: 'placeHold', holdId: AUT, amount: 40 * USD + 100_000 }],
    },
  },
  {
    type: 'AuthorizationCleared',
    data: {
      authorizationId: AUT,
      amount: 15 * USD,
      clearedTotal: 15 * USD,
      remaining: 25 * USD,
      released: 0,
      late: false,
      holdId: `${AUT}.1`,
      networkKey: 'clr-1',
      at,
      ledger: [
        { op: 'placeHold', holdId: `${AUT}.1`, amount: 25 * USD, force: true },
        { op: 'settleHold', holdId: AUT, amount: 15 * USD },
        { op: 'chargeFee', feeId: `${AUT}.fees`, amount: 100_000 },
      ],
    },
  },
  {
    type: 'AuthorizationReversed',
    data: {
      authorizationId: AUT,
      amount: 5 * USD,
      reversedTotal: 5 * USD,
      remaining: 20 * USD,
      holdId: `${AUT}.2`,
      networkKey: 'rev-1',
      at,
      ledger: [
        { op: 'placeHold', holdId: `${AUT}.2`, amount: 20 * USD, force: true },
        { op: 'releaseHold', holdId: `${AUT}.1` },
      ],
    },
  },
  {
    type: 'AuthorizationExpired',
    data: {
      authorizationId: AUT,
      amount: 20 * USD,
      at: '2026-11-27T10:00:00.000Z',
      ledger: [{ op: 'releaseHold', holdId: `${AUT}.2` }],
    },
  },
];
const read = (events: typeof stored): AuthorizationEvent[] =>
  events.map((event) => authorizationEvents.read(event));

describe('ledger lists recorded before partial operations', () => {
  it('reads a whole settle, a whole release and an expiry as the calls the ledger made of them', () => {
    expect(read(stored).map((event) => ('ledger' in event.data ? event.data.ledger : []))).toEqual([
      [{ op: 'placeHold', holdId: AUT, amount: 40 * USD + 100_000 }],
      [
        { op: 'placeHold', holdId: `${AUT}.1`, amount: 25 * USD, force: true },
        // A final clearing under the hold's own id, bounded by nothing but the decision (as then).
        {
          op: 'settleHold',
          holdId: AUT,
          amount: 15 * USD,
          clearingId: AUT,
          final: true,
          overdraftAllowance: 15 * USD,
        },
        { op: 'chargeFee', feeId: `${AUT}.fees`, amount: 100_000 },
      ],
      [
        { op: 'placeHold', holdId: `${AUT}.2`, amount: 20 * USD, force: true },
        { op: 'releaseHold', holdId: `${AUT}.1`, reversalId: `${AUT}.1` },
      ],
      [{ op: 'expireHold', holdId: `${AUT}.2` }],
    ]);
  });

  it('leaves an event of the current shape as it was stored', () => {
    const [decided, cleared] = stored;
    expect(authorizationEvents.read(decided)).toBe(decided);
    const partial = {
      ...cleared,
      data: {
        ...cleared.data,
        ledger: [
          {
            op: 'settleHold',
            holdId: AUT,
            amount: 15 * USD,
            clearingId: `${AUT}.clearing.1`,
            final: false,
            overdraftAllowance: 8 * USD,
          },
        ],
      },
    };
    expect(authorizationEvents.read(partial)).toBe(partial);
  });

  it('goes on from the hold an old partial clearing kept: the next messages operate on it', () => {
    const [decided, cleared] = read(stored);
    const state = [decided, cleared].reduce(authorizationDecider.evolve, authorizationDecider.initialState());
    expect(state).toMatchObject({ holdId: `${AUT}.1`, remaining: 25 * USD, feesCharged: true });
    const [next] = authorizationDecider.decide(
      { type: 'ClearAuthorization', data: { networkKey: 'clr-2', amount: 10 * USD, final: false, now: at } },
      state,
    );
    expect(next.data).toEqual(
      expect.objectContaining({
        remaining: 15 * USD,
        holdId: `${AUT}.1`,
        ledger: [
          {
            op: 'settleHold',
            holdId: `${AUT}.1`,
            amount: 10 * USD,
            clearingId: `${AUT}.clearing.2`,
            final: false,
            overdraftAllowance: 8 * USD,
          },
        ],
      }),
    );
  });
});
