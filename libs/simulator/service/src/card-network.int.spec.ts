import { F, IsoClient, IsoMessage, responseMtiOf, type IsoLinkEvent } from '@cip/shared/iso8583';
import { ManualClock } from '@cip/shared/runtime';
import { CardNetwork } from './card-network';
import { authorizationRequest, reversalMessage, type AcquirerTransaction } from './network/acquirer-messages';

// The network's side of the link against a fake issuer (an IsoClient, as the platform's authorizations
// service is), over loopback TCP. Timeouts are real: short (100 ms) only where a test needs one to expire,
// long (5 s) where the issuer answers, so a loaded machine answering late does not change what happens.

const clock = new ManualClock(new Date('2026-11-23T09:00:00Z'));
const card = { pan: '4000009912345678', expMonth: 3, expYear: 2029, cvv2: '321' };

function transaction(network: CardNetwork, amountMinor = 1250): AcquirerTransaction {
  return {
    acquirerId: '400001',
    acquirerCountry: '840',
    ...network.nextReferences(clock.now()),
    processingCode: '000000',
    amountMinor,
    currencyNumeric: '840',
    acceptor: { name: 'Shop', city: 'Paris', country: 'FR', mcc: '5999', merchantId: 'M1', terminalId: 'T1' },
    entryMode: 'ecommerce',
    at: clock.now(),
  };
}

const answer = (request: IsoMessage, code = '00') =>
  new IsoMessage(responseMtiOf(request.mti), {
    [F.STAN]: request.get(F.STAN),
    [F.RRN]: request.get(F.RRN),
    [F.RESPONSE_CODE]: code,
    [F.APPROVAL_CODE]: code === '00' ? 'A00001' : undefined,
  });

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

const SHORT_MS = 100;

interface Timeouts {
  standInTimeoutMs?: number;
  reversalTimeoutMs?: number;
  ackTimeoutMs?: number;
}

async function startNetwork(events: IsoLinkEvent[] = [], timeouts: Timeouts = {}) {
  const network = new CardNetwork({
    clock,
    standInTimeoutMs: timeouts.standInTimeoutMs ?? 5_000,
    reversalTimeoutMs: timeouts.reversalTimeoutMs,
    standIn: { limitMinor: 10_000 },
    advices: {
      ackTimeoutMs: timeouts.ackTimeoutMs ?? 5_000,
      retry: { initialDelayMs: 5, maxDelayMs: 20, jitter: 0 },
    },
    link: { echoIdleMs: 0 },
    onEvent: (event) => events.push(event),
  });
  const address = await network.listen();
  closers.push(() => network.close());
  return { network, port: Number(address.split(':')[1]) };
}

/** A fake issuer: connects and answers with `handler`; resolves once connected. */
async function connectIssuer(port: number, handler: (request: IsoMessage) => IsoMessage | void) {
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  const issuer = new IsoClient({
    host: '127.0.0.1',
    port,
    echoIdleMs: 0,
    handler,
    onEvent: (event) => event.type === 'connected' && connected(),
  });
  issuer.start();
  closers.push(() => issuer.close());
  await ready;
  return issuer;
}

describe('the card network link', () => {
  it("forwards an 0100 to the connected issuer and returns the issuer's 0110", async () => {
    const { network, port } = await startNetwork();
    const received: IsoMessage[] = [];
    await connectIssuer(port, (request) => {
      received.push(request);
      return answer(request, '51');
    });
    const tx = transaction(network);
    const result = await network.authorize(authorizationRequest(tx, card));
    expect(result.standIn).toBeNull();
    expect(result.response?.mti).toBe('0110');
    expect(result.responseCode).toBe('51');
    expect(received.map((message) => [message.mti, message.get(F.RRN), message.get(F.PAN)])).toEqual([
      ['0100', tx.rrn, card.pan],
    ]);
  });

  it('stands in when the issuer does not answer in time, then repeats the 0120 advice until it is acknowledged', async () => {
    const events: IsoLinkEvent[] = [];
    const { network, port } = await startNetwork(events, {
      standInTimeoutMs: SHORT_MS,
      ackTimeoutMs: SHORT_MS,
    });
    const advices: IsoMessage[] = [];
    let late: IsoMessage | undefined;
    const issuer = await connectIssuer(port, (request) => {
      if (request.mti === '0100') {
        late = answer(request, '05'); // kept, sent after the network stood in
        return;
      }
      // The issuer's decision arrives after the network stood in: the network ignores it.
      if (late) issuer.send(late);
      late = undefined;
      advices.push(request);
      // The first two advices are lost (no answer); the third is acknowledged.
      if (advices.length >= 3) return answer(request);
    });
    const tx = transaction(network);
    const result = await network.authorize(authorizationRequest(tx, card));
    expect(result.response).toBeNull();
    expect(result.responseCode).toBe('00');
    expect(result.approvalCode).toMatch(/^\d{6}$/);
    expect(result.standIn?.reason).toBe('STIP:timeout');

    const ack = await result.standIn?.acknowledged;
    expect(ack?.mti).toBe('0130');
    // Two lost, the third acknowledged; on a loaded machine the third's 0130 can itself come after the 100 ms
    // wait, and the network sends the advice once more (the same STAN and RRN: still the same advice).
    expect(advices.length).toBeGreaterThanOrEqual(3);
    for (const advice of advices) {
      expect(advice.mti).toBe('0120');
      expect(advice.get(F.STAN)).toBe(tx.stan);
      expect(advice.get(F.RRN)).toBe(tx.rrn);
      expect(advice.get(F.RESPONSE_CODE)).toBe('00');
      expect(advice.get(F.APPROVAL_CODE)).toBe(result.approvalCode);
      expect(advice.get(F.ADVICE_REASON)).toBe('STIP:timeout');
    }
    expect(network.advices.size).toBe(0);
    expect(events).toContainEqual({ type: 'unmatched_response', mti: '0110', stan: tx.stan });
  });

  it('declines in stand-in above the stand-in limit, and the advice says so', async () => {
    const { network, port } = await startNetwork([], { standInTimeoutMs: SHORT_MS });
    const advices: IsoMessage[] = [];
    await connectIssuer(port, (request) => {
      if (request.mti === '0120') {
        advices.push(request);
        return answer(request);
      }
    });
    const result = await network.authorize(authorizationRequest(transaction(network, 10_001), card));
    expect(result.responseCode).toBe('61');
    expect(result.approvalCode).toBeNull();
    await result.standIn?.acknowledged;
    expect(advices[0].get(F.RESPONSE_CODE)).toBe('61');
    expect(advices[0].has(F.APPROVAL_CODE)).toBe(false);
  });

  it('stands in at once with no issuer connected, and forwards the advice when an issuer connects', async () => {
    const { network, port } = await startNetwork();
    const tx = transaction(network);
    const result = await network.authorize(authorizationRequest(tx, card));
    expect(result.standIn?.reason).toBe('STIP:unavailable');
    expect(network.advices.size).toBe(1);

    const advices: IsoMessage[] = [];
    await connectIssuer(port, (request) => {
      advices.push(request);
      return answer(request);
    });
    await result.standIn?.acknowledged;
    expect(advices.map((advice) => [advice.mti, advice.get(F.RRN), advice.get(F.ADVICE_REASON)])).toEqual([
      ['0120', tx.rrn, 'STIP:unavailable'],
    ]);
  });

  it('sends a reversal as 0400 and, when the issuer does not answer it, an 0420 advice until acknowledged', async () => {
    const { network, port } = await startNetwork([], { reversalTimeoutMs: SHORT_MS });
    const seen: string[] = [];
    await connectIssuer(port, (request) => {
      seen.push(request.mti);
      if (request.mti === '0100' || request.mti === '0420') return answer(request);
      // The 0400 goes unanswered.
    });
    const tx = transaction(network);
    await network.authorize(authorizationRequest(tx, card));
    const reversal = { stan: network.nextStan(), at: clock.now(), remainingMinor: 0 };
    const adviceStan = network.nextStan();
    const result = await network.reverse(reversalMessage(tx, card, reversal), () =>
      reversalMessage(tx, card, { ...reversal, stan: adviceStan }, '0420'),
    );
    expect(result.response).toBeNull();
    expect(result.responseCode).toBe('00');
    const ack = await result.advice;
    expect(ack?.mti).toBe('0430');
    expect(seen).toEqual(['0100', '0400', '0420']);
  });

  it('returns the 0410 when the issuer answers the reversal', async () => {
    const { network, port } = await startNetwork();
    await connectIssuer(port, (request) => answer(request));
    const tx = transaction(network);
    const reversal = { stan: network.nextStan(), at: clock.now(), remainingMinor: 500 };
    const result = await network.reverse(reversalMessage(tx, card, reversal), () => {
      throw new Error('no advice expected');
    });
    expect(result.response?.mti).toBe('0410');
    expect(result.advice).toBeNull();
  });
});
