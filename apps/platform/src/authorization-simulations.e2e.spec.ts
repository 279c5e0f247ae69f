import { F, IsoClient, IsoMessage, responseMtiOf } from '@cip/shared/iso8583';
import { readClearingFile } from '@cip/simulator/contract';
import { waitFor } from '@cip/shared/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { activeUserWithWallet, distributorCalls, filesUnder, vaultSecretsOf } from './testing/cardholders';
import { Harness, PRODUCTION_KEY, startHarness } from './testing/platform-harness';
import { e2eTopology, itOnOneProcess } from './testing/topology';

/** Why the tests that play the issuer (or leave none connected) need the one-process platform. */
const FAKE_ISSUER =
  "a fake issuer (or none) on the card network: the split topology links the platform's issuer";

// The sandbox's card network over /v1/simulate/authorization...: the simulator sends real ISO 8583 messages
// to whatever issuer is connected to its link. On the one-process platform its own issuer is not linked
// here (`linkIssuer: false`), so the tests connect a fake issuer (an IsoClient, as the authorizations service
// is) or none, and read what travelled: those tests are one-process only (the split topology always links
// the authorizations service's issuer). The others (validation, ownership, sandbox only, the clearing file,
// no PAN stored) run on both. The platform's issuer behind the simulator: authorization-simulations-pin.

describe('authorization simulations (sandbox card network)', () => {
  let h: Harness;
  const bodies: string[] = [];
  const seen = <T extends { text: string }>(response: T): T => {
    bodies.push(response.text);
    return response;
  };
  const { post } = distributorCalls(() => h, seen);
  let cardId: string;
  const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };

  beforeAll(async () => {
    // The simulator alone: each test plays the issuer itself (or none), so the platform's issuer stays off.
    h = await startHarness(e2eTopology() === 'split' ? {} : { linkIssuer: false });
    const { userId } = await activeUserWithWallet(h, { seen });
    const card = await post('/v1/cards', { userId, type: 'virtual' });
    expect(card.status).toBe(201);
    cardId = card.body.id;
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A fake issuer answering every request with `responseCode`, keeping what it received. */
  async function issuerAnswering(responseCode: string) {
    const received: IsoMessage[] = [];
    const issuer = await connectIssuer((request) => {
      received.push(request);
      return new IsoMessage(responseMtiOf(request.mti), {
        [F.STAN]: request.get(F.STAN),
        [F.RRN]: request.get(F.RRN),
        [F.RESPONSE_CODE]: responseCode,
      });
    });
    return { issuer, received };
  }

  /** A fake issuer on the platform's card network link; answers with `decide`. */
  async function connectIssuer(decide: (request: IsoMessage) => IsoMessage | void) {
    const [host, port] = h.platform.sandboxNetworkAddress.split(':');
    let connected!: () => void;
    const ready = new Promise<void>((resolve) => (connected = resolve));
    const issuer = new IsoClient({
      host,
      port: Number(port),
      echoIdleMs: 0,
      handler: decide,
      onEvent: (event) => event.type === 'connected' && connected(),
    });
    issuer.start();
    await ready;
    return issuer;
  }

  itOnOneProcess(
    FAKE_ISSUER,
    'sends a real 0100 with the card read from the vault to the connected issuer, and returns its answer',
    async () => {
      const { issuer, received } = await issuerAnswering('51');
      try {
        const response = await post('/v1/simulate/authorization', {
          cardId,
          amount: 12.5,
          currency: 'EUR',
          merchant,
          pin: '1234',
          entryMode: 'chip',
        });
        expect(response.status).toBe(200);
        expect(response.body.network).toMatchObject({
          acquirerId: '400001',
          requestMti: '0100',
          responseMti: '0110',
          responseCode: '51',
          advice: null,
        });
        // No issuer side in this runtime: there is no authorization record to show yet.
        expect(response.body.authorization).toBeNull();

        const secrets = await vaultSecretsOf(h, cardId);
        expect(received).toHaveLength(1);
        const [request] = received;
        expect(request.get(F.PAN)).toBe(secrets.pan);
        expect(request.get(F.EXPIRY)).toBe(
          String(secrets.expYear % 100).padStart(2, '0') + String(secrets.expMonth).padStart(2, '0'),
        );
        expect(request.get(F.AMOUNT_TRANSACTION)).toBe('000000001250');
        expect(request.get(F.CURRENCY_TRANSACTION)).toBe('978');
        expect(request.get(F.MCC)).toBe('5814');
        expect(request.get(F.RRN)).toBe(response.body.network.rrn);
        expect(request.getBinary(F.PIN_DATA)).toHaveLength(8);
      } finally {
        await issuer.close();
      }
    },
  );

  itOnOneProcess(
    FAKE_ISSUER,
    'stands in when no issuer is connected: approved under the stand-in limit, declined above it',
    async () => {
      const small = await post('/v1/simulate/authorization', { cardId, amount: 20, merchant });
      expect(small.status).toBe(200);
      expect(small.body.network).toMatchObject({
        requestMti: '0120',
        responseMti: null,
        responseCode: '00',
        approvalCode: expect.stringMatching(/^\d{6}$/),
        advice: 'stand_in',
        adviceAcknowledged: false,
      });
      const large = await post('/v1/simulate/authorization', { cardId, amount: 100.01, merchant });
      expect(large.body.network).toMatchObject({
        responseCode: '61',
        approvalCode: null,
        advice: 'stand_in',
      });
    },
  );

  itOnOneProcess(FAKE_ISSUER, 'forwards the waiting stand-in advices once an issuer connects', async () => {
    const advices: IsoMessage[] = [];
    let gotOne!: () => void;
    const arrived = new Promise<void>((resolve) => (gotOne = resolve));
    const issuer = await connectIssuer((request) => {
      advices.push(request);
      gotOne();
      return new IsoMessage(responseMtiOf(request.mti), {
        [F.STAN]: request.get(F.STAN),
        [F.RRN]: request.get(F.RRN),
        [F.RESPONSE_CODE]: '00',
      });
    });
    try {
      await arrived;
      expect(advices[0].mti).toBe('0120');
      expect(advices[0].get(F.ADVICE_REASON)).toBe('STIP:unavailable');
    } finally {
      await issuer.close();
    }
  });

  itOnOneProcess(FAKE_ISSUER, 'sends a refund as an 0100 with processing code 20', async () => {
    const { issuer, received } = await issuerAnswering('00');
    try {
      const refund = await post('/v1/simulate/authorization/refund', { cardId, amount: 3, merchant });
      expect(refund.status).toBe(200);
      expect(refund.body.network).toMatchObject({ requestMti: '0100', responseMti: '0110', advice: null });
      const request = received.find((message) => message.get(F.RRN) === refund.body.network.rrn);
      expect(request?.get(F.PROCESSING_CODE)).toBe('200000');
      expect(request?.get(F.AMOUNT_TRANSACTION)).toBe('000000000300');
    } finally {
      await issuer.close();
    }
  });

  it('produces a clearing file for a force post, stored, naming the card without its PAN', async () => {
    const response = await post('/v1/simulate/authorization/clearing', {
      cardId,
      amount: 7.25,
      currency: 'USD',
      merchant,
    });
    expect(response.status).toBe(200);
    expect(response.body.delivered).toBe(true);
    const { file } = response.body;
    expect(file.fileId).toMatch(/^CLR-sandbox-\d{8}-\d{6}$/);
    expect(file.presentments).toEqual([
      expect.objectContaining({
        kind: 'force_post',
        cardId,
        amountMinor: 725,
        currency: 'USD',
        approvalCode: '',
      }),
    ]);
    const stored = readFileSync(
      join(h.dataDir, 'simulator', 'sandbox', 'clearing', `${file.fileId}.txt`),
      'utf8',
    );
    expect(stored).toBe(file.content);
    expect(readClearingFile(stored).presentments[0].panLast4).toBe(
      (await vaultSecretsOf(h, cardId)).pan.slice(-4),
    );
  });

  it('refuses bad input with 400 validation_error naming the field', async () => {
    const cases: [string, object, string][] = [
      ['/v1/simulate/authorization', { cardId, amount: 12.345, merchant }, 'amount'],
      ['/v1/simulate/authorization', { cardId, amount: 1, currency: 'XYZ', merchant }, 'currency'],
      ['/v1/simulate/authorization', { cardId, amount: 1 }, 'merchant'],
      [
        '/v1/simulate/authorization',
        { cardId, amount: 1, merchant: { ...merchant, mcc: '58' } },
        'merchant.mcc',
      ],
      [
        '/v1/simulate/authorization',
        { cardId, amount: 1, merchant: { ...merchant, country: 'FRA' } },
        'merchant.country',
      ],
      ['/v1/simulate/authorization', { cardId, amount: 1, merchant, cvv2: '12' }, 'cvv2'],
      ['/v1/simulate/authorization', { cardId: 'card-1', amount: 1, merchant }, 'cardId'],
      ['/v1/simulate/authorization/reversal', { amount: 1 }, 'authorizationId'],
      ['/v1/simulate/authorization/clearing', { amount: 1 }, 'cardId'],
    ];
    for (const [path, body, field] of cases) {
      const response = await post(path, body);
      expect({ path, field, status: response.status, code: response.body.error?.code }).toEqual({
        path,
        field,
        status: 400,
        code: 'validation_error',
      });
      expect(JSON.stringify(response.body.error.details)).toContain(field);
    }
  });

  it("answers 404 for another distributor's card and for an authorization the network never carried", async () => {
    const other = await h.newDistributor();
    const stranger = await post(
      '/v1/simulate/authorization',
      { cardId, amount: 1, merchant },
      other.sandboxKey,
    );
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe('not_found');
    const unknownCard = await post('/v1/simulate/authorization', {
      cardId: 'crd-00000000-0000-4000-8000-000000000000',
      amount: 1,
      merchant,
    });
    expect(unknownCard.status).toBe(404);
    const reversal = await post('/v1/simulate/authorization/reversal', {
      authorizationId: 'aut-00000000-0000-4000-8000-000000000000',
    });
    expect(reversal.status).toBe(404);
    const clearing = await post('/v1/simulate/authorization/clearing', {
      authorizationId: 'aut-00000000-0000-4000-8000-000000000000',
    });
    expect(clearing.status).toBe(404);
  });

  it('keeps the simulations to sandbox keys (403 sandbox_only)', async () => {
    for (const path of ['', '/refund', '/reversal', '/clearing']) {
      const response = await post(
        `/v1/simulate/authorization${path}`,
        { cardId, amount: 1, merchant },
        PRODUCTION_KEY,
      );
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('sandbox_only');
    }
  });

  it('never shows or stores the PAN or CVV2: not in any response, not under the simulator data directory', async () => {
    const { pan, cvv2 } = await vaultSecretsOf(h, cardId);
    for (const body of bodies) expect(body).not.toContain(pan);
    for (const path of filesUnder(join(h.dataDir, 'simulator'))) {
      const content = readFileSync(path, 'utf8');
      expect(content).not.toContain(pan);
      expect(content).not.toMatch(new RegExp(`"cvv2"\\s*:\\s*"${cvv2}"`));
    }
  });

  itOnOneProcess(
    FAKE_ISSUER,
    'forwards after a restart the stand-in advice owed from before it (journaled, rebuilt from the vault)',
    async () => {
      const stoodIn = await post('/v1/simulate/authorization', { cardId, amount: 9, merchant });
      expect(stoodIn.body.network).toMatchObject({ advice: 'stand_in', adviceAcknowledged: false });
      const { dataDir } = h;
      await h.close({ keepData: true });
      h = await startHarness({ dataDir, linkIssuer: false });

      const advices: IsoMessage[] = [];
      const issuer = await connectIssuer((request) => {
        advices.push(request);
        return new IsoMessage(responseMtiOf(request.mti), {
          [F.STAN]: request.get(F.STAN),
          [F.RRN]: request.get(F.RRN),
          [F.RESPONSE_CODE]: '00',
        });
      });
      try {
        await waitFor(() => advices.some((advice) => advice.get(F.RRN) === stoodIn.body.network.rrn), {
          what: 'the owed advice forwarded after the restart',
          timeoutMs: 10_000,
        });
        const advice = advices.find(
          (message) => message.get(F.RRN) === stoodIn.body.network.rrn,
        ) as IsoMessage;
        expect(advice.mti).toBe('0120');
        expect(advice.get(F.STAN)).toBe(stoodIn.body.network.stan);
        expect(advice.get(F.PAN)).toBe((await vaultSecretsOf(h, cardId)).pan);
        expect(advice.get(F.APPROVAL_CODE)).toBe(stoodIn.body.network.approvalCode);
      } finally {
        await issuer.close();
      }
    },
  );
});
