import type { AuthorizationsApi, AuthorizationView } from '@cip/authorizations/contract';
import type { CardSandboxApi } from '@cip/cards/contract';
import { Caller, DomainError } from '@cip/shared/contracts';
import {
  decryptPinBlock,
  F,
  IsoClient,
  IsoMessage,
  pinOfBlock,
  responseMtiOf,
  SANDBOX_ZPK,
} from '@cip/shared/iso8583';
import { ManualClock } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import type { ClearingFile, ClearingFileSink } from '@cip/simulator/contract';
import { readClearingFile } from '@cip/simulator/contract';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CardNetwork } from './card-network';
import { SimulatorStore } from './simulator-store';
import { SimulatorService } from './simulator.service';

// The simulator's flows end to end at the service: a fake issuer on a real link records what arrives and
// plays the authorizations context's `findByNetworkReference`; the cards contract is a fake vault.

const clock = new ManualClock(new Date('2026-11-23T09:00:00Z'));
const caller: Caller = {
  distributorId: 'dst-1',
  environment: 'sandbox',
  requestId: 'req-1',
  program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
};
const CARD_ID = 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7';
const merchant = { name: 'Hotel', city: 'Lyon', country: 'FR', mcc: '7011' };
const cards: CardSandboxApi = {
  async cardholderDetails(who, cardId) {
    if (who.distributorId !== caller.distributorId || cardId !== CARD_ID) {
      throw new DomainError('not_found', `Card ${cardId} was not found`);
    }
    return { pan: '4000009912345678', cvv2: '321', expMonth: 11, expYear: 2029 };
  },
};

const closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'cip-simulator-'));
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  const network = new CardNetwork({
    clock,
    standInTimeoutMs: 5_000, // the issuer answers (or is not connected: stand-in at once); never waited out
    standIn: { limitMinor: 10_000 },
    link: { echoIdleMs: 0 },
  });
  const [host, port] = (await network.listen()).split(':');
  closers.push(() => network.close());
  const received: IsoMessage[] = [];
  /** The issuer's records, keyed by RRN, as the authorizations context would keep them. */
  const records = new Map<string, AuthorizationView>();
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  const issuer = new IsoClient({
    host,
    port: Number(port),
    echoIdleMs: 0,
    handler: (request) => {
      received.push(request);
      const rrn = request.get(F.RRN) as string;
      if (request.mti === '0100') {
        records.set(rrn, { id: `aut-${records.size + 1}`, distributorId: 'dst-1' } as AuthorizationView);
      }
      // 99.99 is declined (do not honour); everything else approved.
      const declined = request.mti === '0100' && request.get(F.AMOUNT_TRANSACTION) === '000000009999';
      return new IsoMessage(responseMtiOf(request.mti), {
        [F.STAN]: request.get(F.STAN),
        [F.RRN]: rrn,
        [F.RESPONSE_CODE]: declined ? '05' : '00',
        [F.APPROVAL_CODE]: request.mti === '0100' && !declined ? 'ABC123' : undefined,
      });
    },
    onEvent: (event) => event.type === 'connected' && connected(),
  });
  issuer.start();
  closers.push(() => issuer.close());
  await ready;
  const authorizations = {
    async findByNetworkReference(who: Caller, ref: { acquirerId: string; rrn: string }) {
      const view = records.get(ref.rrn);
      return view && who.distributorId === view.distributorId && ref.acquirerId === '400001' ? view : null;
    },
  } as AuthorizationsApi;
  const delivered: ClearingFile[] = [];
  const sink: ClearingFileSink = {
    deliver: async (_environment, file) => void delivered.push(file),
    checkPresentment: async () => undefined,
  };
  const storeDir = join(dir, 'sandbox');
  const service = (store: SimulatorStore) =>
    new SimulatorService(
      {
        network: (environment) => (environment === 'sandbox' ? network : null),
        store: () => store,
        cards,
        authorizations,
        clearingSink: sink,
        acquirer: { acquirerId: '400001', country: '840', zpkHex: SANDBOX_ZPK },
      },
      clock,
    );
  return { simulator: service(new SimulatorStore(storeDir)), service, storeDir, received, delivered };
}

describe('the simulator service (acquirer flows over the link)', () => {
  it("returns the issuer's record of an authorization, found by the network reference it sent", async () => {
    const { simulator, received } = await setUp();
    const result = await simulator.simulateAuthorization(caller, { cardId: CARD_ID, amount: 80, merchant });
    expect(result.authorization?.id).toBe('aut-1');
    expect(result.network).toMatchObject({ requestMti: '0100', responseMti: '0110', approvalCode: 'ABC123' });
    expect(received[0].get(F.RRN)).toBe(result.network.rrn);
    expect(received[0].get(F.CVV2)).toBe('321');
  });

  it('sends the PIN as a format 0 block encrypted under the ZPK: the issuer holding the key reads it', async () => {
    const { simulator, received } = await setUp();
    await simulator.simulateAuthorization(caller, { cardId: CARD_ID, amount: 80, merchant, pin: '4321' });
    const block = received[0].getBinary(F.PIN_DATA) as Buffer;
    expect(pinOfBlock(block, '4000009912345678')).toBeNull();
    expect(pinOfBlock(decryptPinBlock(block, SANDBOX_ZPK) as Buffer, '4000009912345678')).toBe('4321');
  });

  it('reverses part, then the rest, of an authorization (0400 with DE-095, then without), and refuses more', async () => {
    const { simulator, received } = await setUp();
    const { authorization, network } = await simulator.simulateAuthorization(caller, {
      cardId: CARD_ID,
      amount: 80,
      merchant,
    });
    const authorizationId = authorization?.id as string;
    const tooMuch = simulator.simulateReversal(caller, { authorizationId, amount: 80.01 });
    await expect(tooMuch).rejects.toMatchObject({ code: 'validation_error' });

    await simulator.simulateReversal(caller, { authorizationId, amount: 30 });
    await simulator.simulateReversal(caller, { authorizationId });
    const reversals = received.filter((message) => message.mti === '0400');
    expect(
      reversals.map((message) => [message.get(F.RRN), message.get(F.REPLACEMENT_AMOUNTS)?.slice(0, 12)]),
    ).toEqual([
      [network.rrn, '000000005000'],
      [network.rrn, undefined],
    ]);
    expect(reversals[0].get(F.ORIGINAL_DATA_ELEMENTS)?.slice(0, 10)).toBe(`0100${network.stan}`);

    await expect(simulator.simulateReversal(caller, { authorizationId })).rejects.toMatchObject({
      code: 'invalid_state_transition',
    });
  });

  it('queues concurrent reversals of one authorization: what is left is never reversed twice', async () => {
    const { simulator, received } = await setUp();
    const { authorization } = await simulator.simulateAuthorization(caller, {
      cardId: CARD_ID,
      amount: 80,
      merchant,
    });
    const authorizationId = authorization?.id as string;
    const outcomes = await Promise.allSettled(
      [30, 30, 30].map((amount) => simulator.simulateReversal(caller, { authorizationId, amount })),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'validation_error' });
    const totals = received
      .filter((message) => message.mti === '0400')
      .map((message) => message.get(F.REPLACEMENT_AMOUNTS)?.slice(0, 12));
    expect(totals).toEqual(['000000005000', '000000002000']);
  });

  it('refuses to reverse a declined authorization (409)', async () => {
    const { simulator } = await setUp();
    const declined = await simulator.simulateAuthorization(caller, {
      cardId: CARD_ID,
      amount: 99.99,
      merchant,
    });
    expect(declined.network.responseCode).toBe('05');
    await expect(
      simulator.simulateReversal(caller, { authorizationId: declined.authorization?.id as string }),
    ).rejects.toMatchObject({ code: 'invalid_state_transition' });
  });

  it('presents an authorization in clearing files: full, partial, several partials and over the amount', async () => {
    const { simulator, delivered } = await setUp();
    const { authorization, network } = await simulator.simulateAuthorization(caller, {
      cardId: CARD_ID,
      amount: 80,
      merchant,
    });
    const authorizationId = authorization?.id as string;
    for (const amount of [undefined, 20, 30, 95.5]) {
      const result = await simulator.simulateClearing(caller, { authorizationId, amount });
      expect(result.delivered).toBe(true);
    }
    const records = delivered.map((file) => readClearingFile(file.content).presentments[0]);
    expect(
      records.map((record) => [record.kind, record.rrn, record.approvalCode, record.amountMinor]),
    ).toEqual([
      ['presentment', network.rrn, 'ABC123', 8000],
      ['presentment', network.rrn, 'ABC123', 2000],
      ['presentment', network.rrn, 'ABC123', 3000],
      ['presentment', network.rrn, 'ABC123', 9550],
    ]);
    // Each file has its own identity, so that importing one twice can be recognised.
    expect(new Set(delivered.map((file) => file.fileId)).size).toBe(4);
    expect(records.every((record) => record.cardId === CARD_ID && record.panLast4 === '5678')).toBe(true);
  });

  it('remembers the transactions it carried across a restart (its journal), for later reversals and clearing', async () => {
    const { simulator, service, storeDir, received } = await setUp();
    const { authorization } = await simulator.simulateAuthorization(caller, {
      cardId: CARD_ID,
      amount: 10,
      merchant,
    });
    await simulator.simulateReversal(caller, { authorizationId: authorization?.id as string, amount: 4 });

    const restarted = service(new SimulatorStore(storeDir));
    await restarted.simulateReversal(caller, { authorizationId: authorization?.id as string });
    const last = received.filter((message) => message.mti === '0400').at(-1);
    expect(last?.has(F.REPLACEMENT_AMOUNTS)).toBe(false);
    await expect(
      restarted.simulateReversal(caller, { authorizationId: authorization?.id as string }),
    ).rejects.toMatchObject({ code: 'invalid_state_transition' });
  });

  it("treats another distributor's authorization as unknown, and refuses production", async () => {
    const { simulator } = await setUp();
    const { authorization } = await simulator.simulateAuthorization(caller, {
      cardId: CARD_ID,
      amount: 10,
      merchant,
    });
    const stranger = { ...caller, distributorId: 'dst-2' };
    await expect(
      simulator.simulateReversal(stranger, { authorizationId: authorization?.id as string }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      simulator.simulateClearing(stranger, { authorizationId: authorization?.id as string }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      simulator.simulateAuthorization(
        { ...caller, environment: 'production' },
        { cardId: CARD_ID, amount: 1, merchant },
      ),
    ).rejects.toMatchObject({ code: 'sandbox_only' });
  });
});

describe('store and forward across a restart', () => {
  const acquirer = { acquirerId: '400001', country: '840', zpkHex: SANDBOX_ZPK };

  /** A network with no issuer yet, its journal under `dir`, and the service over both. */
  async function start(dir: string) {
    const network = new CardNetwork({
      clock,
      standInTimeoutMs: 5_000, // the issuer answers (or is not connected: stand-in at once); never waited out
      standIn: { limitMinor: 10_000 },
      advices: { retry: { initialDelayMs: 5, maxDelayMs: 20, jitter: 0 } },
      link: { echoIdleMs: 0 },
    });
    const [host, port] = (await network.listen()).split(':');
    const store = new SimulatorStore(dir);
    const service = new SimulatorService(
      {
        network: () => network,
        store: () => store,
        cards,
        authorizations: null,
        clearingSink: null,
        acquirer,
      },
      clock,
    );
    return { network, host, port: Number(port), store, service };
  }

  it('forwards, after a restart, the stand-in advice journaled before it, rebuilt from the vault, until acknowledged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cip-simulator-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));

    const before = await start(dir);
    const { network: sent } = await before.service.simulateAuthorization(caller, {
      cardId: CARD_ID,
      amount: 42,
      merchant,
    });
    expect(sent.advice).toBe('stand_in');
    // The process dies before any issuer connected: the in-memory queue is gone.
    await before.network.close();
    expect(readFileSync(join(dir, 'transactions.jsonl'), 'utf8')).not.toContain('4000009912345678');

    const after = await start(dir);
    closers.push(() => after.network.close());
    expect(after.store.owedAdvices()).toHaveLength(1);
    await expect(after.service.forwardOwedAdvices('sandbox')).resolves.toEqual({ queued: 1, failed: 0 });

    const advices: IsoMessage[] = [];
    const issuer = new IsoClient({
      host: after.host,
      port: after.port,
      echoIdleMs: 0,
      handler: (request) => {
        advices.push(request);
        return new IsoMessage(responseMtiOf(request.mti), {
          [F.STAN]: request.get(F.STAN),
          [F.RRN]: request.get(F.RRN),
          [F.RESPONSE_CODE]: '00',
        });
      },
    });
    issuer.start();
    closers.push(() => issuer.close());
    await waitFor(() => after.store.owedAdvices().length === 0, {
      what: 'the advice acknowledged and journaled',
      timeoutMs: 5_000,
    });

    expect(advices.map((advice) => [advice.mti, advice.get(F.STAN), advice.get(F.RRN)])).toEqual([
      ['0120', sent.stan, sent.rrn],
    ]);
    expect(advices[0].get(F.PAN)).toBe('4000009912345678');
    expect(advices[0].get(F.RESPONSE_CODE)).toBe(sent.responseCode);
    expect(advices[0].get(F.APPROVAL_CODE)).toBe(sent.approvalCode);
    expect(advices[0].get(F.ADVICE_REASON)).toBe('STIP:unavailable');
    // Acknowledged is journaled too: a third start owes nothing.
    expect(new SimulatorStore(dir).owedAdvices()).toEqual([]);
  });
});
