import { waitFor, Answer, WebhookReceiver } from '@cip/shared/testing';
import { Webhook } from 'standardwebhooks';
import { activeUserWithWallet, distributorCalls, issuerLinked, vaultSecretsOf } from './testing/cardholders';
import { Harness, PRODUCTION_KEY, SANDBOX_KEY, startHarness } from './testing/platform-harness';

// Real-time decisioning by the distributor (issue 12, "beyond the spec"): the platform's issuer, linked to
// the sandbox card network, asks the distributor's endpoint (a local receiver) once its own checks pass and
// before it holds anything. Each test gets its own receiver (its own url, hence its own circuit breaker).
// The slow receiver holds its answer until the test releases it: nothing here sleeps.

describe('real-time authorization decisioning', () => {
  let h: Harness;
  const { post, get } = distributorCalls(() => h);
  const receivers: WebhookReceiver[] = [];
  const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };
  let secret: string;
  let card: { cardId: string; walletId: string; pan: string };

  const put = async (body: object, key = SANDBOX_KEY) =>
    h.http
      .put('/v1/authorization-decisioning')
      .set({ 'x-api-key': key, 'content-type': 'application/json' })
      .send(body);

  async function receiver(answer: WebhookReceiver['answer']): Promise<WebhookReceiver> {
    const started = await new WebhookReceiver().start();
    started.answer = answer;
    receivers.push(started);
    return started;
  }

  /** Points decisioning at `target` (the secret stays the one shown when it was switched on). */
  async function decideWith(target: WebhookReceiver, settings: object = {}) {
    const response = await put({ url: target.url, ...settings });
    expect(response.status).toBe(200);
    expect(response.body.secret).toBeUndefined();
  }

  const pay = (amount: number) =>
    post('/v1/simulate/authorization', { cardId: card.cardId, amount, currency: 'USD', merchant });

  const available = async () => (await get(`/v1/wallets/${card.walletId}`)).body.availableBalance as number;

  const lateAnswers = async () => {
    // The issuer's metrics: the authorizations service's /metrics (the platform's own when one process).
    const text = await (await fetch(`${h.systemUrl('authorizations')}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('authorization_decisioning_outcomes_total{outcome="late_ignored"}'));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  beforeAll(async () => {
    h = await startHarness({ allowPrivateWebhookUrls: true });
    await issuerLinked(h);
    const holder = await activeUserWithWallet(h);
    const created = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(created.status).toBe(201);
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: 1000 })).status).toBe(
      201,
    );
    card = {
      cardId: created.body.id,
      walletId: holder.walletId,
      pan: (await vaultSecretsOf(h, created.body.id)).pan,
    };
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  it('is off until configured: GET is 404 and the platform decides alone', async () => {
    expect((await get('/v1/authorization-decisioning')).status).toBe(404);
    const paid = await pay(1);
    expect(paid.body.network).toMatchObject({ responseCode: '00' });
    expect(paid.body.authorization).toMatchObject({ status: 'confirmed', decidedBy: 'platform' });
  });

  it('sends a signed request without card data; an approval confirms the payment and holds it', async () => {
    const target = await receiver(() => ({ status: 200, body: JSON.stringify({ decision: 'approve' }) }));
    const created = await put({ url: target.url });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ url: target.url, timeoutMs: 1000, onTimeout: 'decline' });
    expect(created.body.secret).toMatch(/^whsec_/);
    secret = created.body.secret;
    const shown = await get('/v1/authorization-decisioning');
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({
      url: target.url,
      timeoutMs: 1000,
      onTimeout: 'decline',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const before = await available();
    const paid = await pay(25);
    expect(paid.body.network).toMatchObject({ responseCode: '00' });
    expect(paid.body.authorization).toMatchObject({
      status: 'confirmed',
      decidedBy: 'distributor',
      amount: 25,
    });
    expect(await available()).toBe(before - 25);

    expect(target.requests).toHaveLength(1);
    const [request] = target.requests;
    const verified = new Webhook(secret).verify(request.rawBody, request.headers as Record<string, string>);
    expect(verified).toMatchObject({
      type: 'authorization.request',
      authorization: {
        id: paid.body.authorization.id,
        cardId: card.cardId,
        walletId: card.walletId,
        type: 'payment',
        amount: 25,
        amountMinorUnits: 25_000_000,
        currency: 'USD',
        merchantAmount: '25.00',
        merchantCurrency: 'USD',
        merchant: expect.objectContaining({ mcc: '5814' }),
      },
    });
    expect(request.headers['webhook-id']).toBe(paid.body.authorization.id);
    expect(request.rawBody).not.toContain(card.pan);
    expect(() =>
      new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(
        request.rawBody,
        request.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('a decline rejects the payment with failedControl and holds nothing', async () => {
    await decideWith(await receiver(() => ({ status: 200, body: '{"decision":"decline"}' })));
    const before = await available();
    const paid = await pay(30);
    expect(paid.body.network).toMatchObject({ responseCode: '57' });
    expect(paid.body.authorization).toMatchObject({
      status: 'rejected',
      declineReasonCode: 'failedControl',
      decidedBy: 'distributor',
    });
    expect(await available()).toBe(before);
  });

  it('a partial approval answers 10 with the approved amount, holds it, and clears it', async () => {
    const half = (request: { body: Record<string, unknown> }) => ({
      status: 200,
      body: JSON.stringify({
        decision: 'approve',
        amount: (request.body.authorization as { amountMinorUnits: number }).amountMinorUnits / 2,
      }),
    });
    await decideWith(await receiver(half));
    const before = await available();
    const paid = await pay(40);
    expect(paid.body.network).toMatchObject({ responseCode: '10', approvalCode: expect.any(String) });
    expect(paid.body.authorization).toMatchObject({
      status: 'confirmed',
      decidedBy: 'distributor',
      amount: 20,
      merchantAmount: '20.00',
    });
    expect(await available()).toBe(before - 20);

    const cleared = await post('/v1/simulate/authorization/clearing', {
      authorizationId: paid.body.authorization.id,
    });
    expect(cleared.body.file.presentments).toEqual([expect.objectContaining({ amountMinor: 2000 })]);
    await waitFor(
      async () => (await get(`/v1/authorizations/${paid.body.authorization.id}`)).body.status === 'cleared',
      { what: 'the partial approval cleared' },
    );
    expect((await get(`/v1/authorizations/${paid.body.authorization.id}`)).body).toMatchObject({
      clearedAmount: 20,
    });
  });

  it('a partial approval of a payment in another currency is declined (DE-004 cannot carry it exactly)', async () => {
    await decideWith(
      await receiver((request) => ({
        status: 200,
        body: JSON.stringify({
          decision: 'approve',
          amount: (request.body.authorization as { amountMinorUnits: number }).amountMinorUnits / 2,
        }),
      })),
    );
    const before = await available();
    const paid = await post('/v1/simulate/authorization', {
      cardId: card.cardId,
      amount: 40,
      currency: 'EUR',
      merchant,
    });
    expect(paid.body.authorization).toMatchObject({ status: 'rejected', declineReasonCode: 'failedControl' });
    expect(await available()).toBe(before);
  });

  it('a receiver slower than timeoutMs gets onTimeout (decline, then approve); its late answer is ignored', async () => {
    let release!: (answer: Answer) => void;
    let arrived = 0;
    const slow = await receiver(
      () =>
        new Promise<Answer>((resolve) => {
          arrived++;
          release = resolve;
        }),
    );
    await decideWith(slow, { timeoutMs: 150 });
    const before = await available();
    const lateBefore = await lateAnswers();

    const declined = await pay(50);
    expect(arrived).toBe(1);
    expect(declined.body.network).toMatchObject({ responseCode: '05' });
    expect(declined.body.authorization).toMatchObject({
      status: 'rejected',
      declineReasonCode: 'other',
      decidedBy: 'distributorTimeout',
    });
    release({ status: 200, body: '{"decision":"approve"}' });
    await waitFor(async () => (await lateAnswers()) === lateBefore + 1, { what: 'the late answer logged' });
    expect((await get(`/v1/authorizations/${declined.body.authorization.id}`)).body).toMatchObject({
      status: 'rejected',
    });
    expect(await available()).toBe(before);

    await decideWith(slow, { timeoutMs: 150, onTimeout: 'approve' });
    const approved = await pay(50);
    expect(approved.body.authorization).toMatchObject({
      status: 'confirmed',
      decidedBy: 'distributorTimeout',
    });
    expect(await available()).toBe(before - 50);
    release({ status: 200, body: '{"decision":"decline"}' });
    await waitFor(async () => (await lateAnswers()) === lateBefore + 2, { what: 'the late answer logged' });
    expect((await get(`/v1/authorizations/${approved.body.authorization.id}`)).body).toMatchObject({
      status: 'confirmed',
    });
  });

  it.each([
    ['an HTTP 500', { status: 500, body: '{"decision":"approve"}' }],
    ['malformed JSON', { status: 200, body: '{"decision":' }],
    ['an unknown decision', { status: 200, body: '{"decision":"maybe"}' }],
    ['an amount above the request', { status: 200, body: '{"decision":"approve","amount":999000000000}' }],
  ])('a failing receiver (%s) gets onTimeout', async (_what, answer) => {
    const failing = await receiver(() => answer);
    await decideWith(failing, { onTimeout: 'decline' });
    const before = await available();
    const paid = await pay(5);
    expect(failing.requests).toHaveLength(1);
    expect(paid.body.authorization).toMatchObject({ status: 'rejected', decidedBy: 'distributorTimeout' });
    expect(await available()).toBe(before);
  });

  it.each([
    ['url', { url: 'http://decisions.example.com/hook' }, PRODUCTION_KEY],
    ['url', { url: 'https://127.0.0.1/hook' }, PRODUCTION_KEY],
    ['url', { url: 'https://10.1.2.3/hook' }, PRODUCTION_KEY],
    // Issue 38: an IPv4-translated address (::ffff:0:0:0/96) of the loopback, and other embedding forms.
    ['url', { url: 'https://[::ffff:0:127.0.0.1]:8443/hook' }, PRODUCTION_KEY],
    ['url', { url: 'https://[::ffff:0:a9fe:a9fe]/hook' }, PRODUCTION_KEY],
    ['url', { url: 'https://[64:ff9b::c0a8:101]/hook' }, PRODUCTION_KEY],
    ['url', { url: 'not a url' }, SANDBOX_KEY],
    ['timeoutMs', { url: 'https://decisions.example.com/hook', timeoutMs: 1501 }, SANDBOX_KEY],
    ['timeoutMs', { url: 'https://decisions.example.com/hook', timeoutMs: 99 }, SANDBOX_KEY],
    ['onTimeout', { url: 'https://decisions.example.com/hook', onTimeout: 'maybe' }, SANDBOX_KEY],
  ])('refuses a bad %s with 400 validation_error and changes nothing', async (field, body, key) => {
    const before = await get('/v1/authorization-decisioning', {}, key);
    const refused = await put(body, key);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('validation_error');
    expect(JSON.stringify(refused.body.error)).toContain(field);
    const after = await get('/v1/authorization-decisioning', {}, key);
    expect(after.status).toBe(before.status);
    expect({ ...after.body, requestId: null }).toEqual({ ...before.body, requestId: null });
  });

  it('DELETE switches it off: the platform decides alone, and a new PUT shows a new secret', async () => {
    const target = await receiver(() => ({ status: 200, body: '{"decision":"decline"}' }));
    await decideWith(target);
    const off = await h.http.delete('/v1/authorization-decisioning').set({ 'x-api-key': SANDBOX_KEY });
    expect(off.status).toBe(204);
    expect((await get('/v1/authorization-decisioning')).status).toBe(404);
    expect(
      (await h.http.delete('/v1/authorization-decisioning').set({ 'x-api-key': SANDBOX_KEY })).status,
    ).toBe(404);
    const paid = await pay(2);
    expect(paid.body.authorization).toMatchObject({ status: 'confirmed', decidedBy: 'platform' });
    expect(target.requests).toHaveLength(0);

    const again = await put({ url: target.url });
    expect(again.body.secret).toMatch(/^whsec_/);
    expect(again.body.secret).not.toBe(secret);
  });
});
