import { ManualClock } from '@cip/shared/runtime';
import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { activeUserWithWallet, distributorCalls, filesUnder, vaultSecretsOf } from './testing/cardholders';
import { Harness, SANDBOX_KEY, splitLogLines, startHarness } from './testing/platform-harness';
import { e2eTopology } from './testing/topology';
import { webhookSettler } from './testing/webhook-settle';

interface Simulated {
  transStatus: string | null;
  transStatusReason: string | null;
  cardAuthenticationId: string | null;
  result: {
    transStatus: string;
    transStatusReason: string | null;
    eci: string | null;
    authenticated: boolean;
  } | null;
  cardAuthentication: Record<string, unknown> | null;
}

describe('3-D Secure over HTTP: the ACS, out-of-band challenges decided by the distributor, fail-closed deadlines', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  let secret: string;
  const clock = new ManualClock(new Date());
  const bodies: string[] = [];
  const seen = <T extends { text: string }>(response: T): T => {
    bodies.push(response.text);
    return response;
  };
  const logLines: string[] = [];
  const pans: string[] = [];

  beforeAll(async () => {
    // The test's clock (the fail-closed test moves it; on the split topology every process reads it). One
    // process: the test's logger. Split: every process's log file at trace.
    h = await startHarness(
      e2eTopology() === 'split'
        ? { clock, allowPrivateWebhookUrls: true, splitLogLevel: 'trace' }
        : {
            clock,
            allowPrivateWebhookUrls: true,
            logger: pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) }),
          },
    );
    receiver = await new WebhookReceiver().start();
    const subscription = await post('/v1/webhook-subscriptions', { url: receiver.url });
    expect(subscription.status).toBe(201);
    secret = subscription.body.secret;
  });

  afterAll(async () => {
    try {
      // The PAN crossed the ACS in every AReq: it is in no file of the data directory, no response, no
      // webhook delivery, no log line.
      expect(pans.length).toBeGreaterThan(0);
      const files = filesUnder(h.dataDir);
      expect(files.some((file) => readFileSync(file).includes('"maskedPan"'))).toBe(true);
      const logged = h.topology === 'split' ? splitLogLines(h) : logLines;
      expect(logged.length).toBeGreaterThan(0);
      for (const pan of pans) {
        expect(files.filter((file) => readFileSync(file).includes(pan))).toEqual([]);
        expect(bodies.filter((body) => body.includes(pan))).toEqual([]);
        expect(receiver.requests.filter((request) => request.rawBody.includes(pan))).toEqual([]);
        expect(logged.filter((line) => line.includes(pan))).toEqual([]);
      }
    } finally {
      await receiver.stop();
      await settler.stop();
      await h.close();
    }
  });

  const { post, get } = distributorCalls(() => h, seen);

  const settler = webhookSettler(() => h);
  const settle = () => settler.settle(SANDBOX_KEY);

  /** `seconds` after the authentication was made: its deadline. */
  const deadline = (made: { createdAt: string }, seconds: number) =>
    new Date(Date.parse(made.createdAt) + seconds * 1000).toISOString();

  async function newCard() {
    const holder = await activeUserWithWallet(h, { seen });
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    const secrets = await vaultSecretsOf(h, card.body.id);
    pans.push(secrets.pan);
    return { ...holder, cardId: card.body.id as string, maskedPan: card.body.maskedPan as string, secrets };
  }

  async function simulate(body: object): Promise<Simulated> {
    const response = await post('/v1/simulate/3ds', body);
    expect(response.status).toBe(200);
    return response.body;
  }

  const deliveries = (eventName: string, id: string) =>
    receiver.acknowledged(eventName).filter((request) => request.body.eventTargetId === id);

  /** What the sandbox 3DS server received as RReq, once it did. */
  async function rreqOf(id: string): Promise<Simulated['result']> {
    let result: Simulated['result'] = null;
    await waitFor(
      async () => {
        result = (await get(`/v1/simulate/3ds/${id}`)).body.result;
        return result !== null;
      },
      { what: `the RReq of ${id}` },
    );
    return result;
  }

  it('challenges out of band, delivers the signed cardAuthentication.created, and an accept completes it with Y', async () => {
    const { userId, walletId, cardId, maskedPan } = await newCard();
    const simulated = await simulate({
      cardId,
      merchantName: 'Corner Shop',
      merchantAmount: 42.5,
      merchantCurrency: 'EUR',
    });
    expect(simulated).toMatchObject({ transStatus: 'D', transStatusReason: null, result: null });
    const id = simulated.cardAuthenticationId as string;
    expect(id).toMatch(/^tds-[0-9a-f-]{36}$/);
    const wallet = await get(`/v1/wallets/${walletId}`);

    await settle();
    const [delivery] = deliveries('cardAuthentication.created', id);
    expect(delivery).toBeDefined();
    // Signed as every Event: the official Standard Webhooks verifier accepts it with the subscription's secret.
    new Webhook(secret).verify(delivery.rawBody, delivery.headers as Record<string, string>);
    const expiresAt = deadline(simulated.cardAuthentication as { createdAt: string }, 5 * 60);
    expect(delivery.body).toMatchObject({
      eventName: 'cardAuthentication.created',
      eventTargetId: id,
      userId,
      data: {
        id,
        userId,
        cardId,
        walletId,
        merchantName: 'Corner Shop',
        maskedPan,
        merchantAmount: '42.50',
        merchantCurrency: 'EUR',
        walletAddress: wallet.body.depositAddress,
        threedsRequestorAppUrl: 'https://sandbox-merchant.example/3ds-return',
        status: 'pending',
        expiresAt,
      },
    });
    expect(simulated.cardAuthentication).toMatchObject({ id, status: 'pending', expiresAt });

    const accepted = await post('/v1/3ds/accept', { cardAuthenticationId: id });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      id,
      status: 'accepted',
      result: { transStatus: 'Y', transStatusReason: null },
    });
    expect(await rreqOf(id)).toMatchObject({ transStatus: 'Y', eci: '05', authenticated: true });
    await settle();
    expect(deliveries('cardAuthentication.accepted', id)).toHaveLength(1);
    expect((await get(`/v1/3ds/${id}`)).body.result.notifiedAt).toEqual(expect.any(String));

    // A second answer changes nothing.
    for (const answer of ['accept', 'reject']) {
      const again = await post(`/v1/3ds/${answer}`, { cardAuthenticationId: id });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('invalid_state_transition');
    }
    expect((await get(`/v1/3ds/${id}`)).body.status).toBe('accepted');

    // The merchant is now known to the card: a small payment there is frictionless (Y, no challenge).
    const frictionless = await simulate({
      cardId,
      merchantName: 'Corner Shop',
      merchantAmount: 12,
      merchantCurrency: 'EUR',
    });
    expect(frictionless).toMatchObject({
      transStatus: 'Y',
      cardAuthenticationId: null,
      cardAuthentication: null,
    });
    // Above the limit it is challenged again.
    const above = await simulate({
      cardId,
      merchantName: 'Corner Shop',
      merchantAmount: 30.01,
      merchantCurrency: 'EUR',
    });
    expect(above.transStatus).toBe('D');
    expect((await post('/v1/3ds/reject', { cardAuthenticationId: above.cardAuthenticationId })).status).toBe(
      200,
    );
  });

  it('sends N (reason 01) when the distributor rejects, and a card verification has no amount', async () => {
    const { cardId } = await newCard();
    const simulated = await simulate({ cardId, merchantName: 'Verify Me' });
    expect(simulated.transStatus).toBe('D');
    const id = simulated.cardAuthenticationId as string;
    expect(simulated.cardAuthentication).toMatchObject({
      purpose: 'cardVerification',
      merchantAmount: null,
      merchantCurrency: null,
    });
    const rejected = await post('/v1/3ds/reject', { cardAuthenticationId: id });
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      result: { transStatus: 'N', transStatusReason: '01' },
    });
    expect(await rreqOf(id)).toMatchObject({
      transStatus: 'N',
      transStatusReason: '01',
      authenticated: false,
    });
    await settle();
    expect(deliveries('cardAuthentication.created', id)[0].body.data).toMatchObject({
      merchantAmount: null,
      merchantCurrency: null,
    });
    expect(deliveries('cardAuthentication.rejected', id)).toHaveLength(1);
  });

  it('fails closed on the clock: no answer by expiresAt is refused (N, 14) once, and a late answer is 409', async () => {
    const { cardId } = await newCard();
    const id = (await simulate({ cardId, merchantName: 'Slow Shop', merchantAmount: 80 }))
      .cardAuthenticationId as string;
    clock.advance(5 * 60_000 - 1);
    await h.sweepDue('three-ds');
    expect((await get(`/v1/3ds/${id}`)).body.status).toBe('pending');
    clock.advance(1);
    // At the deadline, before the sweep: the answer is already late, and changes nothing.
    const late = await post('/v1/3ds/accept', { cardAuthenticationId: id });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('card_authentication_expired');
    await h.sweepDue('three-ds');
    expect((await get(`/v1/3ds/${id}`)).body.status).toBe('expired');
    expect(await rreqOf(id)).toMatchObject({
      transStatus: 'N',
      transStatusReason: '14',
      authenticated: false,
    });
    const after = await post('/v1/3ds/reject', { cardAuthenticationId: id });
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('card_authentication_expired');
    expect((await get(`/v1/3ds/${id}`)).body).toMatchObject({
      status: 'expired',
      result: { transStatus: 'N' },
    });
    await settle();
    expect(deliveries('cardAuthentication.expired', id)).toHaveLength(1);
    expect(deliveries('cardAuthentication.accepted', id)).toHaveLength(0);
  });

  it("gives the challenge the program's deadline", async () => {
    const other = await h.newDistributor({ threeDs: { challengeDeadlineSeconds: 120 } });
    const holder = await activeUserWithWallet(h, { key: other.sandboxKey, seen });
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' }, other.sandboxKey);
    pans.push((await vaultSecretsOf(h, card.body.id)).pan);
    const simulated = await post(
      '/v1/simulate/3ds',
      { cardId: card.body.id, merchantName: 'Quick Shop', merchantAmount: 99 },
      other.sandboxKey,
    );
    expect(simulated.body.cardAuthentication).toMatchObject({
      status: 'pending',
      expiresAt: deadline(simulated.body.cardAuthentication, 120),
    });
    const reject = await post(
      '/v1/3ds/reject',
      { cardAuthenticationId: simulated.body.cardAuthenticationId },
      other.sandboxKey,
    );
    expect(reject.status).toBe(200);
  });

  it("keeps a distributor's authentications to itself", async () => {
    const { cardId } = await newCard();
    const id = (await simulate({ cardId, merchantName: 'Private Shop', merchantAmount: 50 }))
      .cardAuthenticationId as string;
    const other = await h.newDistributor();
    expect((await get(`/v1/3ds/${id}`, {}, other.sandboxKey)).status).toBe(404);
    expect((await post('/v1/3ds/accept', { cardAuthenticationId: id }, other.sandboxKey)).status).toBe(404);
    expect((await get(`/v1/3ds/${id}`)).body.status).toBe('pending');
    expect((await get('/v1/3ds/tds-not-an-id')).status).toBe(404);
    expect(
      (await post('/v1/simulate/3ds', { cardId, merchantName: 'X', merchantAmount: 1 }, other.sandboxKey))
        .status,
    ).toBe(404);
  });

  describe('the ACS at the 3DS host', () => {
    let areq: Record<string, unknown>;
    const acs = (body: unknown) =>
      fetch(`${h.url}/3ds/acs/sandbox/areq`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (response) => {
        const text = await response.text();
        bodies.push(text);
        return { status: response.status, body: JSON.parse(text) };
      });

    beforeAll(async () => {
      const { secrets } = await newCard();
      areq = {
        messageType: 'AReq',
        messageVersion: '2.2.0',
        messageCategory: '01',
        deviceChannel: '01',
        threeDSServerTransID: randomUUID(),
        dsTransID: randomUUID(),
        dsURL: `${h.url}/simulator/3ds/ds/sandbox/rreq`,
        dsReferenceNumber: 'DS-REF',
        threeDSServerRefNumber: '3DSS-REF',
        threeDSServerURL: 'https://3ds-server.example/notify',
        threeDSRequestorID: 'REQ-1',
        threeDSRequestorName: 'Requestor',
        threeDSRequestorURL: 'https://merchant.example',
        acctNumber: secrets.pan,
        cardExpiryDate: `${String(secrets.expYear).slice(-2)}${String(secrets.expMonth).padStart(2, '0')}`,
        purchaseAmount: '1999',
        purchaseCurrency: '978',
        purchaseExponent: '2',
        purchaseDate: '20261123101500',
        acquirerBIN: '400001',
        acquirerMerchantID: 'MERCH1',
        merchantName: 'Direct Shop',
        mcc: '5999',
        merchantCountryCode: '250',
        threeDSRequestorDecReqInd: 'Y',
        sdkAppID: randomUUID(),
        sdkTransID: randomUUID(),
        sdkReferenceNumber: 'SDK',
        sdkMaxTimeout: '05',
        sdkEncData: 'x',
        sdkEphemPubKey: { kty: 'EC' },
        deviceRenderOptions: { sdkInterface: '03' },
      };
    });

    it('answers a well-formed AReq with an ARes, and N 08 for a card it does not know', async () => {
      const answer = await acs(areq);
      expect(answer).toMatchObject({
        status: 200,
        body: {
          messageType: 'ARes',
          messageVersion: '2.2.0',
          threeDSServerTransID: areq.threeDSServerTransID,
          dsTransID: areq.dsTransID,
          transStatus: 'D',
          authenticationType: '04',
          acsDecConInd: 'Y',
        },
      });
      expect(answer.body.acsTransID).toMatch(/^[0-9a-f-]{36}$/);
      const unknown = await acs({ ...areq, acctNumber: '4000000000000002' });
      expect(unknown.body).toMatchObject({ messageType: 'ARes', transStatus: 'N', transStatusReason: '08' });
      const noDecoupled = await acs({ ...areq, threeDSRequestorDecReqInd: 'N' });
      expect(noDecoupled.body).toMatchObject({ transStatus: 'N', transStatusReason: '23' });
    });

    it('answers a malformed message with the specification\u2019s Erro, never a 500', async () => {
      const { acctNumber: _pan, ...withoutPan } = areq;
      expect((await acs(withoutPan)).body).toMatchObject({
        messageType: 'Erro',
        errorComponent: 'A',
        errorCode: '201',
        errorDetail: 'acctNumber',
        errorMessageType: 'AReq',
        threeDSServerTransID: areq.threeDSServerTransID,
      });
      const { purchaseAmount: _amount, ...withoutAmount } = areq;
      expect((await acs(withoutAmount)).body).toMatchObject({
        errorCode: '201',
        errorDetail: 'purchaseAmount',
      });
      expect((await acs({ ...areq, purchaseCurrency: 'EUR', mcc: '59' })).body).toMatchObject({
        errorCode: '203',
        errorDetail: 'purchaseCurrency,mcc',
      });
      expect((await acs({ ...areq, purchaseCurrency: '999' })).body).toMatchObject({
        errorCode: '203',
        errorDetail: 'purchaseCurrency',
      });
      expect((await acs({ ...areq, messageVersion: '2.1.0' })).body).toMatchObject({ errorCode: '102' });
      expect((await acs({ ...areq, messageType: 'RReq' })).body).toMatchObject({ errorCode: '101' });
      expect((await acs([areq])).body).toMatchObject({ messageType: 'Erro', errorCode: '101' });
      const notJson = await fetch(`${h.url}/3ds/acs/sandbox/areq`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"messageType": "AReq",',
      });
      expect(notJson.status).toBe(200);
      expect(await notJson.json()).toMatchObject({
        messageType: 'Erro',
        errorComponent: 'A',
        errorCode: '101',
      });
      const nowhere = await fetch(`${h.url}/3ds/acs/staging/areq`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(areq),
      });
      expect(await nowhere.json()).toMatchObject({ messageType: 'Erro', errorCode: '303' });
      // Production's directory server is reached over https only (the URL comes in the message).
      const production = await fetch(`${h.url}/3ds/acs/production/areq`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(areq),
      });
      expect(await production.json()).toMatchObject({
        messageType: 'Erro',
        errorCode: '203',
        errorDetail: 'dsURL',
      });
      const bad = await acs({ ...areq, threeDSServerTransID: 'not-a-uuid' });
      expect(bad.status).toBe(200);
      expect(bad.body).toMatchObject({ errorCode: '203', errorDetail: 'threeDSServerTransID' });
      expect(bad.body.threeDSServerTransID).toBeUndefined();
    });

    it('challenges a browser on a hosted page, then hands it the CRes for the requestor (C)', async () => {
      // The test's own directory server: the RReq of this transaction comes to it.
      const rreqs: Record<string, string>[] = [];
      const ds = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const rreq = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
          rreqs.push(rreq);
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ ...rreq, messageType: 'RRes', resultsStatus: '01' }));
        });
      });
      await new Promise<void>((resolve) => ds.listen(0, '127.0.0.1', resolve));
      try {
        const { secrets, maskedPan } = await newCard();
        const {
          sdkAppID: _a,
          sdkTransID: _b,
          sdkReferenceNumber: _c,
          sdkMaxTimeout: _d,
          sdkEncData: _e,
          sdkEphemPubKey: _f,
          deviceRenderOptions: _g,
          threeDSRequestorDecReqInd: _h,
          ...common
        } = areq;
        const threeDSServerTransID = randomUUID();
        const ares = await acs({
          ...common,
          threeDSServerTransID,
          dsURL: `http://127.0.0.1:${(ds.address() as AddressInfo).port}/rreq`,
          deviceChannel: '02',
          threeDSCompInd: 'Y',
          notificationURL: 'https://merchant.example/3ds/notify',
          browserAcceptHeader: 'text/html',
          browserLanguage: 'fr-FR',
          browserUserAgent: 'Mozilla/5.0',
          acctNumber: secrets.pan,
          cardExpiryDate: `${String(secrets.expYear).slice(-2)}${String(secrets.expMonth).padStart(2, '0')}`,
          merchantName: 'Browser Shop',
        });
        expect(ares.body).toMatchObject({ messageType: 'ARes', transStatus: 'C', authenticationType: '03' });
        const acsURL = new URL(ares.body.acsURL as string);
        expect(acsURL.pathname).toBe('/hosted/3ds/challenge/sandbox');
        const creq = Buffer.from(
          JSON.stringify({
            messageType: 'CReq',
            messageVersion: '2.2.0',
            threeDSServerTransID,
            acsTransID: ares.body.acsTransID,
            challengeWindowSize: '05',
          }),
        ).toString('base64url');
        const postForm = (form: Record<string, string>) =>
          fetch(new URL(acsURL.pathname, h.url), {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(form).toString(),
          }).then(async (response) => ({
            status: response.status,
            headers: response.headers,
            text: await response.text(),
          }));

        const pending = await postForm({ creq, threeDSSessionData: 'c2Vzc2lvbg' });
        bodies.push(pending.text);
        expect(pending.status).toBe(200);
        expect(pending.text).toContain('Browser Shop');
        expect(pending.text).toContain('19.99 EUR');
        expect(pending.text).toContain(maskedPan);
        expect(pending.text).not.toContain('<script');
        expect(pending.headers.get('content-security-policy')).toContain('frame-ancestors *');
        const id = `tds-${String(ares.body.acsTransID)}`;
        await settle();
        expect(deliveries('cardAuthentication.created', id)).toHaveLength(1);

        expect((await postForm({ creq: 'not-a-creq' })).status).toBe(400);
        expect(
          (
            await postForm({
              creq: Buffer.from(
                JSON.stringify({
                  messageType: 'CReq',
                  messageVersion: '2.2.0',
                  threeDSServerTransID: randomUUID(),
                  acsTransID: ares.body.acsTransID,
                  challengeWindowSize: '05',
                }),
              ).toString('base64url'),
            })
          ).status,
        ).toBe(400);

        expect((await post('/v1/3ds/accept', { cardAuthenticationId: id })).status).toBe(200);
        const done = await postForm({ creq, threeDSSessionData: 'c2Vzc2lvbg' });
        bodies.push(done.text);
        expect(done.text).toContain('action="https://merchant.example/3ds/notify"');
        expect(done.headers.get('content-security-policy')).toContain(
          "form-action 'self' https://merchant.example",
        );
        const cres = /name="cres" value="([^"]+)"/.exec(done.text)?.[1] as string;
        expect(JSON.parse(Buffer.from(cres, 'base64url').toString('utf8'))).toEqual({
          messageType: 'CRes',
          messageVersion: '2.2.0',
          threeDSServerTransID,
          acsTransID: ares.body.acsTransID,
          transStatus: 'Y',
          challengeCompletionInd: 'Y',
        });
        expect(done.text).toContain('name="threeDSSessionData" value="c2Vzc2lvbg"');
        await waitFor(() => rreqs.length > 0, { what: 'the RReq of the browser challenge' });
        expect(rreqs[0]).toMatchObject({ transStatus: 'Y', authenticationType: '03', eci: '05' });
      } finally {
        await new Promise((resolve) => ds.close(resolve));
      }
    });

    it('sends the RReq again until the directory server acknowledges it, then once only', async () => {
      const received: Record<string, string>[] = [];
      const ds = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const rreq = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
          received.push(rreq);
          // The DS is down for the first two attempts.
          if (received.length <= 2) {
            response.writeHead(503);
            return response.end();
          }
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ ...rreq, messageType: 'RRes', resultsStatus: '01' }));
        });
      });
      await new Promise<void>((resolve) => ds.listen(0, '127.0.0.1', resolve));
      try {
        const ares = await acs({
          ...areq,
          threeDSServerTransID: randomUUID(),
          dsURL: `http://127.0.0.1:${(ds.address() as AddressInfo).port}/rreq`,
        });
        expect(ares.body.transStatus).toBe('D');
        const id = `tds-${String(ares.body.acsTransID)}`;
        expect((await post('/v1/3ds/reject', { cardAuthenticationId: id })).status).toBe(200);
        await waitFor(async () => (await get(`/v1/3ds/${id}`)).body.result.notifiedAt !== null, {
          what: 'the RReq acknowledged after the DS came back',
        });
        await settle();
        expect(received).toHaveLength(3);
        expect(new Set(received.map((rreq) => rreq.acsTransID))).toEqual(new Set([ares.body.acsTransID]));
        expect(received[2]).toMatchObject({ transStatus: 'N', transStatusReason: '01' });
      } finally {
        await new Promise((resolve) => ds.close(resolve));
      }
    });

    it('refuses a card that is not active with R 12', async () => {
      const { cardId, secrets } = await newCard();
      expect((await post(`/v1/cards/${cardId}/freeze`)).status).toBe(200);
      const answer = await acs({
        ...areq,
        threeDSServerTransID: randomUUID(),
        acctNumber: secrets.pan,
        cardExpiryDate: `${String(secrets.expYear).slice(-2)}${String(secrets.expMonth).padStart(2, '0')}`,
      });
      expect(answer.body).toMatchObject({ messageType: 'ARes', transStatus: 'R', transStatusReason: '12' });
    });
  });
});
