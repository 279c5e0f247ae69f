import {
  AUTHORIZATION_LEDGER_GROUP,
  authorizationLedgerSaga,
  AuthorizationsService,
  authorizationIdOf,
  type NetworkAuthorizationRequest,
  type NetworkReversalRequest,
  UnrecordedHoldSweep,
} from '@cip/authorizations/service';
import { PROGRAM_DEFAULT_SPENDING_CONTROLS, type CardNetworkApi } from '@cip/cards/contract';
import type { AuthorizationProgram } from '@cip/authorizations/domain';
import {
  ConsumerHost,
  openEmbeddedInfrastructure,
  projectionReadModel,
  readModelConsumer,
  sagaConsumer,
  type Infrastructure,
} from '@cip/shared/infrastructure';
import { envelope } from '@cip/shared/eventing';
import { ManualClock } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import type { ClearingPresentment } from '@cip/simulator/contract';
import {
  HdDepositAddressDeriver,
  generateDepositSeed,
  SimulatedChain,
  SimulatedPayout,
} from '@cip/wallets/chain';
import type { LedgerContext, WalletLedger } from '@cip/wallets/contract';
import { walletsProjection } from '@cip/wallets/read-models';
import { WalletsService } from '@cip/wallets/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The authorizations service on the wallets service's ledger, both on one embedded store (no HTTP, no
// network link): many clearings and reversals of authorizations on one wallet at once, and a clearing
// whose ledger call is overtaken by a later message on its authorization.

const USD = 1_000_000;
const DISTRIBUTOR = 'dst-ledger';
const ACQUIRER = '400001';
const MERCHANT = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };
const PROGRAM: AuthorizationProgram = { fxRates: {}, fees: {}, clearingTolerance: 200_000 };

/** The wallet ledger with a gate on chosen clearings: their first call waits until the test opens it. */
class GatedLedger implements WalletLedger {
  private readonly gates = new Map<string, Promise<void>>();
  readonly waiting = new Set<string>();

  constructor(private readonly inner: WalletLedger) {}

  /** Holds the first settle of `clearingId` until the returned function is called. */
  gate(clearingId: string): () => void {
    let open!: () => void;
    this.gates.set(clearingId, new Promise<void>((resolve) => (open = resolve)));
    return open;
  }

  /** Holds the answer of the hold `holdId` (placed on the wallet at once) until the returned function is called. */
  gateAfterHold(holdId: string): () => void {
    return this.gate(`hold:${holdId}`);
  }

  placeHold: WalletLedger['placeHold'] = async (context, walletId, input) => {
    const placed = await this.inner.placeHold(context, walletId, input);
    const gate = this.gates.get(`hold:${input.holdId}`);
    if (gate) {
      this.gates.delete(`hold:${input.holdId}`);
      this.waiting.add(`hold:${input.holdId}`);
      await gate;
      this.waiting.delete(`hold:${input.holdId}`);
    }
    return placed;
  };
  releaseHold: WalletLedger['releaseHold'] = (...args) => this.inner.releaseHold(...args);
  expireHold: WalletLedger['expireHold'] = (...args) => this.inner.expireHold(...args);
  forcePost: WalletLedger['forcePost'] = (...args) => this.inner.forcePost(...args);
  refund: WalletLedger['refund'] = (...args) => this.inner.refund(...args);
  chargeFee: WalletLedger['chargeFee'] = (...args) => this.inner.chargeFee(...args);
  settleHold: WalletLedger['settleHold'] = async (context, walletId, holdId, amount, options) => {
    const gate = options?.clearingId === undefined ? undefined : this.gates.get(options.clearingId);
    if (gate && options?.clearingId) {
      this.gates.delete(options.clearingId);
      this.waiting.add(options.clearingId);
      await gate;
      this.waiting.delete(options.clearingId);
    }
    return this.inner.settleHold(context, walletId, holdId, amount, options);
  };
}

describe('authorizations on the wallet ledger, one wallet under concurrent clearings and reversals', () => {
  let dataDir: string;
  let infrastructure: Infrastructure;
  let consumers: ConsumerHost;
  let wallets: WalletsService;
  let ledger: GatedLedger;
  let authorizations: AuthorizationsService;
  /** The ledger saga of `authorizations` (its own host, so a test can stop it as a process dies). */
  let ledgerSaga: ConsumerHost;
  let newAuthorizations: (
    ledger: WalletLedger,
    options?: { saga: boolean },
  ) => Promise<{ service: AuthorizationsService; saga: ConsumerHost | null }>;
  let walletId: string;
  let clock: ManualClock;
  let rrn = 0;
  /** Reads of each stream by the authorizations processes (a message's progress, for the ordering test). */
  const reads = new Map<string, number>();

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-authorization-ledger-'));
    infrastructure = openEmbeddedInfrastructure({ dataDir, pollIntervalMs: 20 });
    consumers = new ConsumerHost();
    const walletsReadModel = readModelConsumer(projectionReadModel(walletsProjection));
    consumers.register(walletsReadModel);
    await consumers.start(infrastructure);
    clock = new ManualClock('2026-11-23T10:00:00.000Z');
    const simulatedChain = new SimulatedChain(clock);
    const chain = {
      deriver: new HdDepositAddressDeriver(generateDepositSeed(), 'simulated'),
      payout: new SimulatedPayout(simulatedChain),
    };
    wallets = new WalletsService(
      {
        eventStore: (environment) => infrastructure.scope(environment).eventStore,
        readStore: (environment) => infrastructure.scope(environment).readStore,
        settle: (environment) => consumers.settle(environment, [walletsReadModel.group]),
        catchUpWallets: (environment) => consumers.drain(environment, undefined, 500),
        chain: () => chain,
        simulatedChain,
      },
      clock,
    );
    const wallet = await wallets.provisionWallet('sandbox', {
      userId: 'usr-ledger',
      distributorId: DISTRIBUTOR,
    });
    walletId = wallet.id;
    const context: LedgerContext = { environment: 'sandbox', distributorId: DISTRIBUTOR };
    await wallets.creditDeposit(context, walletId, {
      depositId: '0xfund:0',
      amount: 1000 * USD,
      transactionHash: '0xfund',
      logIndex: 0,
      blockNumber: 1,
      fromAddress: null,
      source: 'simulation',
    });
    const card = {
      cardId: 'crd-ledger',
      distributorId: DISTRIBUTOR,
      userId: 'usr-ledger',
      walletId,
      status: 'active' as const,
      blocks: [],
      expMonth: 12,
      expYear: 2030,
      spendingControls: { ...PROGRAM_DEFAULT_SPENDING_CONTROLS, limits: [] },
    };
    const cards: Pick<CardNetworkApi, 'cardForAuthorization' | 'cardForClearing'> = {
      cardForAuthorization: async () => card,
      cardForClearing: async () => card,
    };
    ledger = new GatedLedger(wallets);
    /** An authorizations process on the store: with its ledger saga running, or without (a dying one). */
    newAuthorizations = async (processLedger, options = { saga: true }) => {
      const saga = options.saga ? new ConsumerHost() : null;
      const service: AuthorizationsService = new AuthorizationsService(
        {
          eventStore: (environment) => {
            const store = infrastructure.scope(environment).eventStore;
            return Object.assign(Object.create(store), {
              readStream: (streamId: string, options?: never) => {
                reads.set(streamId, (reads.get(streamId) ?? 0) + 1);
                return store.readStream(streamId, options);
              },
            });
          },
          readStore: (environment) => infrastructure.scope(environment).readStore,
          settle: async () => undefined,
          ledgerRecovery: async (environment) => {
            if (!saga) return false;
            await saga.drain(environment, [AUTHORIZATION_LEDGER_GROUP], 5_000);
            return true;
          },
          cards: cards as CardNetworkApi,
          users: { userStatus: async () => 'active' as never },
          wallets,
          ledger: processLedger,
          programs: { programOf: () => null },
          authorizationProgram: () => PROGRAM,
        },
        clock,
      );
      if (saga) {
        saga.register(sagaConsumer(authorizationLedgerSaga, [service]));
        await saga.start(infrastructure);
      }
      return { service, saga };
    };
    const started = await newAuthorizations(ledger);
    authorizations = started.service;
    ledgerSaga = started.saga as ConsumerHost;
  });

  afterEach(async () => {
    await ledgerSaga.stop();
    await consumers.stop();
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const reference = (n: number) => ({ acquirerId: ACQUIRER, rrn: `3328${String(n).padStart(8, '0')}` });

  function paymentRequest(n: number, usd: number, advice = false): NetworkAuthorizationRequest {
    const mti = advice ? '0120' : '0100';
    return {
      mti,
      reference: { ...reference(n), stan: String(n).padStart(6, '0') },
      networkKey: `${mti}:${ACQUIRER}:${n}:${reference(n).rrn}`,
      pan: '4000000000000002',
      expiry: '3012',
      kind: 'payment',
      charge: { merchant: MERCHANT, merchantAmount: usd * 100, merchantCurrency: 'USD' },
      ...(advice ? { advice: 'stand_in' as const, networkDecision: '00' } : {}),
    };
  }

  async function authorize(usd: number): Promise<{ id: string; n: number }> {
    const n = ++rrn;
    const answer = await authorizations.authorize('sandbox', paymentRequest(n, usd));
    expect(answer.responseCode).toBe('00');
    return { id: answer.authorizationId as string, n };
  }

  let line = 0;
  /** One clearing line of its own file key. */
  function clearingLine(n: number, usd: number): { key: string; presentment: ClearingPresentment } {
    const presentment: ClearingPresentment = {
      sequence: ++line,
      kind: 'presentment',
      ...reference(n),
      approvalCode: 'ABC123',
      cardId: 'crd-ledger',
      panLast4: '0002',
      processingCode: '000000',
      amountMinor: usd * 100,
      currency: 'USD',
      mcc: MERCHANT.mcc,
      merchantName: MERCHANT.name,
      merchantCity: MERCHANT.city,
      merchantCountry: MERCHANT.country,
      merchantId: 'M1',
      terminalId: 'T1',
      presentedAt: '2026-11-23T10:00:00.000Z',
    };
    return { key: `clearing:CLR-int:${line}`, presentment };
  }
  /** One clearing line: `false` when it could not apply (an operator exception). */
  async function clear(n: number, usd: number): Promise<boolean> {
    const { key, presentment } = clearingLine(n, usd);
    return authorizations.clearPresentment('sandbox', key, presentment).then(
      () => true,
      (error: { code?: string }) => {
        // Refused by the authorization (nothing held any more): what the importer leaves to operators.
        if (error.code === 'invalid_state_transition') return false;
        throw error;
      },
    );
  }

  let stan = 0;
  function reversalRequest(n: number, newTotalUsd?: number): NetworkReversalRequest {
    return {
      mti: '0400',
      reference: { ...reference(n), stan: `r${String(++stan).padStart(5, '0')}` },
      networkKey: `0400:${ACQUIRER}:r${stan}:${reference(n).rrn}`,
      currency: 'USD',
      merchant: MERCHANT,
      ...(newTotalUsd === undefined ? {} : { replacementAmount: newTotalUsd * 100 }),
    };
  }
  async function reverse(n: number, newTotalUsd?: number): Promise<string> {
    return (await authorizations.reverse('sandbox', reversalRequest(n, newTotalUsd))).responseCode;
  }

  /** The wallet's figures as its last ledger event left them, in minor units. */
  const ledgerFigures = async () => {
    const events = await infrastructure.scope('sandbox').eventStore.readStream(walletId);
    const { balance, held } = events.filter((event) => typeof event.data.balance === 'number').at(-1)!
      .data as { balance: number; held: number };
    return { balance, held };
  };

  const authorizationState = async (authorizationId: string) => {
    const stream = await infrastructure.scope('sandbox').eventStore.readStream(authorizationId);
    return stream.map((event) => event.type);
  };

  describe('the answer to a reversal that changes nothing (docs/iso8583.md)', () => {
    const card = { pan: '4000000000000002', expiry: '3012' };
    const advice = (n: number, newTotalUsd?: number): NetworkReversalRequest => {
      const request = reversalRequest(n, newTotalUsd);
      return { ...request, mti: '0420', networkKey: request.networkKey.replace(/^0400/, '0420') };
    };

    it('answers an 0400 of a fully cleared authorization 12 (invalid transaction) and an 0420 00, both changing nothing', async () => {
      const { id, n } = await authorize(50);
      expect(await clear(n, 50)).toBe(true);
      const figures = await ledgerFigures();
      const stream = await authorizationState(id);

      expect(await reverse(n)).toBe('12');
      expect(await reverse(n, 20)).toBe('12'); // partial (DE-095)
      expect((await authorizations.reverse('sandbox', advice(n))).responseCode).toBe('00');
      expect((await authorizations.reverse('sandbox', advice(n, 20))).responseCode).toBe('00');

      expect(await authorizationState(id)).toEqual(stream);
      expect(await ledgerFigures()).toEqual(figures);
    });

    it('answers a repeated full reversal 00 (a retry: its own answer) and another one 12', async () => {
      const { id, n } = await authorize(50);
      const request = reversalRequest(n);
      expect((await authorizations.reverse('sandbox', request)).responseCode).toBe('00');
      expect((await authorizations.reverse('sandbox', request)).responseCode).toBe('00');
      expect(await reverse(n)).toBe('12');
      expect(await authorizationState(id)).toEqual(['AuthorizationDecided', 'AuthorizationReversed']);
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 0 });
    });

    it('answers an 0400 of a transaction it has no record nor hold of 25 (unable to locate), an 0420 00', async () => {
      const n = ++rrn;
      expect((await authorizations.reverse('sandbox', { ...reversalRequest(n), ...card })).responseCode).toBe(
        '25',
      );
      expect((await authorizations.reverse('sandbox', { ...advice(n), ...card })).responseCode).toBe('00');
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 0 });

      // A hold placed under a transaction's id whose decision was never recorded: an 0400 releases it, 00.
      const m = ++rrn;
      const holdId = authorizationIdOf('sandbox', reference(m));
      const context: LedgerContext = { environment: 'sandbox', distributorId: DISTRIBUTOR };
      await wallets.placeHold(context, walletId, { holdId, amount: 30 * USD });
      expect((await authorizations.reverse('sandbox', { ...reversalRequest(m), ...card })).responseCode).toBe(
        '00',
      );
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 0 });
    });
  });

  it('carries out the messages of one authorization in turn: a reversal waits for the clearing before it', async () => {
    const { id, n } = await authorize(50);
    // In turn within the process alone (the saga, which would also carry the clearing out in log order, is off).
    await ledgerSaga.stop();
    // The clearing's ledger call is slow (held back after its event is recorded); meanwhile the network's
    // full reversal of what the authorization says is left arrives.
    const open = ledger.gate(`${id}.clearing.1`);
    const clearing = clear(n, 10);
    await waitFor(() => ledger.waiting.has(`${id}.clearing.1`), {
      what: 'the clearing held before the ledger',
    });
    const read = reads.get(id) ?? 0;
    const reversal = reverse(n);
    // The reversal has read the authorization (state, distributor) and gone on as far as it may go.
    await waitFor(() => (reads.get(id) ?? 0) >= read + 2, { what: 'the reversal reading its authorization' });
    await new Promise((resolve) => setImmediate(resolve));
    open();
    expect(await clearing).toBe(true);
    expect(await reversal).toBe('00');
    // The clearing reached the hold first: 10 debited, the other 40 released.
    expect(await authorizationState(id)).toEqual([
      'AuthorizationDecided',
      'AuthorizationCleared',
      'AuthorizationReversed',
    ]);
    expect(await ledgerFigures()).toEqual({ balance: 990 * USD, held: 0 });
  });

  it('carries out after a restart what a dying process recorded but never took to the wallet, before the next message', async () => {
    const { id, n } = await authorize(50);
    // This process dies; the next one records the clearing and dies before its ledger call.
    await ledgerSaga.stop();
    const dying = await newAuthorizations(
      {
        ...ledger,
        settleHold: async () => {
          throw new Error('killed between the append and the ledger');
        },
      } as WalletLedger,
      { saga: false },
    );
    const line = clearingLine(n, 10);
    await expect(dying.service.clearPresentment('sandbox', line.key, line.presentment)).rejects.toThrow(
      'killed',
    );
    expect(await authorizationState(id)).toEqual(['AuthorizationDecided', 'AuthorizationCleared']);
    expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 50 * USD });

    // A restarted process: the network's full reversal waits for its saga to carry out the clearing first.
    const restarted = await newAuthorizations(wallets);
    ledgerSaga = restarted.saga as ConsumerHost;
    expect((await restarted.service.reverse('sandbox', reversalRequest(n))).responseCode).toBe('00');
    expect(await ledgerFigures()).toEqual({ balance: 990 * USD, held: 0 });
    // The saga passing the same events again (a redelivery) changes nothing.
    await ledgerSaga.drain('sandbox');
    expect(await ledgerFigures()).toEqual({ balance: 990 * USD, held: 0 });
  });

  it('keeps the wallet equal to what its authorizations cleared and still hold under many concurrent messages', async () => {
    const authorized = [];
    for (let i = 0; i < 8; i++) authorized.push(await authorize(50));
    expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 400 * USD });
    // Per authorization, all at once: four partial clearings of 10, a partial reversal (DE-095: a new
    // total of 45) and, on every other one, a full reversal.
    await Promise.all(
      authorized.flatMap(({ n }, i) => [
        clear(n, 10),
        clear(n, 10),
        clear(n, 10),
        clear(n, 10),
        reverse(n, 45),
        ...(i % 2 === 0 ? [reverse(n)] : []),
      ]),
    );
    let cleared = 0;
    let held = 0;
    for (const [i, { id }] of authorized.entries()) {
      const events = await infrastructure.scope('sandbox').eventStore.readStream(id);
      const last = (type: string) => events.filter((event) => event.type === type).at(-1)?.data;
      const clearedTotal = (last('AuthorizationCleared')?.clearedTotal as number | undefined) ?? 0;
      const reversedTotal = (last('AuthorizationReversed')?.reversedTotal as number | undefined) ?? 0;
      cleared += clearedTotal;
      held += 50 * USD - clearedTotal - reversedTotal;
      // Nothing is lost: the clearings and reversals account for the authorized amount.
      expect(clearedTotal + reversedTotal).toBeLessThanOrEqual(50 * USD);
      if (i % 2 === 0) expect(clearedTotal + reversedTotal).toBe(50 * USD); // fully reversed
    }
    expect(await ledgerFigures()).toEqual({ balance: 1000 * USD - cleared, held });
    expect(cleared).toBeGreaterThan(0);
  });
  const OLD_AT = '2026-11-23T09:00:00.000Z';
  /** A decision of 50 USD as the two-call form recorded it, and its hold on the wallet (placed before it). */
  async function oldDecision(id: string, n: number) {
    await wallets.placeHold({ environment: 'sandbox', distributorId: DISTRIBUTOR }, walletId, {
      holdId: id,
      amount: 50 * USD,
    });
    return {
      type: 'AuthorizationDecided',
      data: {
        authorizationId: id,
        distributorId: DISTRIBUTOR,
        cardId: 'crd-ledger',
        userId: 'usr-ledger',
        walletId,
        decision: 'confirmed',
        amount: 50 * USD,
        merchantAmount: '50.00',
        merchantCurrency: 'USD',
        fee: {},
        feeTotal: 0,
        fxRate: null,
        merchant: MERCHANT,
        type: 'payment',
        advice: null,
        originalAuthorizationId: null,
        clearingAllowance: 10 * USD,
        expiresAt: '2026-11-30T09:00:00.000Z',
        networkKey: `0100:${ACQUIRER}:${n}:${reference(n).rrn}`,
        decidedAt: OLD_AT,
        ledger: [{ op: 'placeHold', holdId: id, amount: 50 * USD }],
      },
    };
  }
  const recordOld = (id: string, events: object[]) =>
    infrastructure.scope('sandbox').eventStore.append(
      id,
      events.map((event) =>
        envelope(event as never, { occurredAt: OLD_AT, distributorId: DISTRIBUTOR, environment: 'sandbox' }),
      ),
      { expectedRevision: 'no_stream' },
    );

  it('carries out a stream recorded by the two-call form before the upgrade, once, and goes on from its hold', async () => {
    // Decided and partly cleared before the upgrade (the rest kept under a forced hold `.1`); the process
    // died after recording the clearing, before its ledger calls: only the decision's hold is on the wallet.
    const n = ++rrn;
    const id = authorizationIdOf('sandbox', reference(n));
    const old = [
      await oldDecision(id, n),
      {
        type: 'AuthorizationCleared',
        data: {
          authorizationId: id,
          amount: 20 * USD,
          clearedTotal: 20 * USD,
          remaining: 30 * USD,
          released: 0,
          late: false,
          holdId: `${id}.1`,
          networkKey: 'clearing:CLR-old:1',
          at: OLD_AT,
          ledger: [
            { op: 'placeHold', holdId: `${id}.1`, amount: 30 * USD, force: true },
            { op: 'settleHold', holdId: id, amount: 20 * USD },
          ],
        },
      },
    ];
    await recordOld(id, old);
    expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 50 * USD });

    // After the upgrade, the network reverses 10 of the rest: the old lists run first, as they ran then.
    expect(await reverse(n, 40)).toBe('00');
    expect(await ledgerFigures()).toEqual({ balance: 980 * USD, held: 20 * USD });
    // Then the last clearing, with a tip within the tolerance, on the hold the old form kept.
    expect(await clear(n, 25)).toBe(true);
    expect(await ledgerFigures()).toEqual({ balance: 955 * USD, held: 0 });
    // A late reversal finds nothing held: refused (12, invalid transaction), nothing changes.
    expect(await reverse(n, 40)).toBe('12');
    expect(await ledgerFigures()).toEqual({ balance: 955 * USD, held: 0 });
  });
  it('posts a clearing above its hold recorded by the two-call form as the ledger took it then (a tip)', async () => {
    const n = ++rrn;
    const id = authorizationIdOf('sandbox', reference(n));
    await recordOld(id, [
      await oldDecision(id, n),
      {
        type: 'AuthorizationCleared',
        data: {
          authorizationId: id,
          amount: 55 * USD,
          clearedTotal: 55 * USD,
          remaining: 0,
          released: 0,
          late: false,
          holdId: null,
          networkKey: 'clearing:CLR-old:2',
          at: OLD_AT,
          ledger: [{ op: 'settleHold', holdId: id, amount: 55 * USD }],
        },
      },
    ]);
    // The ledger saga carries out the recorded clearing (its process died before): posted, once.
    await ledgerSaga.drain('sandbox');
    expect(await ledgerFigures()).toEqual({ balance: 945 * USD, held: 0 });
    // A late reversal finds nothing held: refused (12, invalid transaction), nothing changes.
    expect(await reverse(n)).toBe('12');
    expect(await ledgerFigures()).toEqual({ balance: 945 * USD, held: 0 });
  });
  describe('the unrecorded-hold sweep (a hold placed, its decision not recorded within the network timeout)', () => {
    const sweepOf = () =>
      new UnrecordedHoldSweep(
        authorizations,
        {
          eventStore: (environment) => infrastructure.scope(environment).eventStore,
          readStore: (environment) => infrastructure.scope(environment).readStore,
        },
        clock,
        { warn: () => undefined },
        { afterMs: 60_000 },
      );

    it('abandons a decision delayed past the sweep: the hold released, the late decision declined', async () => {
      const n = ++rrn;
      const id = authorizationIdOf('sandbox', reference(n));
      const open = ledger.gateAfterHold(id);
      const late = authorizations.authorize('sandbox', paymentRequest(n, 50));
      await waitFor(() => ledger.waiting.has(`hold:${id}`), {
        what: 'the hold placed, its decision held back',
      });
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 50 * USD });

      const sweep = sweepOf();
      // Not yet past the timeout: nothing is touched.
      clock.advance(59_000);
      expect(await sweep.runDue()).toBe(0);
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 50 * USD });
      clock.advance(2_000);
      expect(await sweep.runDue()).toBe(1);
      expect(await authorizationState(id)).toEqual(['AuthorizationAbandoned']);
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 0 });

      // The decision comes now: its append conflicts with the abandonment and it declines; nothing is held.
      open();
      const answer = await late;
      expect(answer.responseCode).not.toBe('00');
      expect(await authorizationState(id)).toEqual(['AuthorizationAbandoned', 'AuthorizationDecided']);
      const decided = (await infrastructure.scope('sandbox').eventStore.readStream(id))[1];
      expect(decided.data).toMatchObject({ decision: 'rejected', declineReasonCode: 'other', ledger: [] });
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 0 });
      // The sweep passing again changes nothing.
      clock.advance(120_000);
      expect(await sweep.runDue()).toBe(0);
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 0 });
    });

    it("records the network's stand-in advice for an abandoned authorization, with its hold", async () => {
      const n = ++rrn;
      const id = authorizationIdOf('sandbox', reference(n));
      // The issuer died after the hold: placed under the authorization's id, nothing recorded.
      await wallets.placeHold({ environment: 'sandbox', distributorId: DISTRIBUTOR }, walletId, {
        holdId: id,
        amount: 30 * USD,
        reference: id,
      });
      clock.advance(61_000);
      expect(await sweepOf().runDue()).toBe(1);
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 0 });
      // The network stood in for the unanswered request and approved it: the advice is recorded and held.
      const advice = await authorizations.authorize('sandbox', paymentRequest(n, 30, true));
      expect(advice.responseCode).toBe('00');
      expect(await authorizationState(id)).toEqual(['AuthorizationAbandoned', 'AuthorizationDecided']);
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 30 * USD });
    });

    it('leaves alone the holds whose decisions were recorded, under many concurrent authorizations on the wallet', async () => {
      const decided = await Promise.all(Array.from({ length: 40 }, () => authorize(5)));
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 200 * USD });
      clock.advance(61_000);
      expect(await sweepOf().runDue()).toBe(0);
      expect(await ledgerFigures()).toEqual({ balance: 1000 * USD, held: 200 * USD });
      for (const { id } of decided) expect(await authorizationState(id)).toEqual(['AuthorizationDecided']);
    });
  });
});
