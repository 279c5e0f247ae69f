import { waitFor, WebhookReceiver, type ReceivedRequest } from '@cip/shared/testing';
import { Webhook } from 'standardwebhooks';
import { activeUserWithWallet, distributorCalls, issuerLinked, walletSettled } from './testing/cardholders';
import { Harness, startHarness } from './testing/platform-harness';

// The spec's integration order, steps 4-8, as a distributor lives it over /v1 with a webhook listener:
// fund the wallet on-chain (the sandbox chain), create a card, subscribe to webhooks, then pay with the
// card through the sandbox card network (real ISO 8583 to the platform's issuer), clear, reverse and
// refund, and receive every `cardAuthorization.*` Event signed, with the fields of spec part 6, each
// followed by the wallet's `balance.updated`.

/** `YYYY-MM-DDTHH:mm:ss.sssZ`, the spec's decidedAt format. */
const SPEC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('a card payment journey (integration steps 4-8) with signed webhooks', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  let secret: string;
  const { post, get } = distributorCalls(() => h);
  const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };

  beforeAll(async () => {
    h = await startHarness({ allowPrivateWebhookUrls: true });
    await issuerLinked(h);
    receiver = await new WebhookReceiver().start();
    // Step 6 first, so every Event of the journey is delivered.
    const subscription = await post('/v1/webhook-subscriptions', { url: receiver.url });
    expect(subscription.status).toBe(201);
    secret = subscription.body.secret;
  });
  afterAll(async () => {
    await receiver?.stop();
    await h?.close();
  });

  /** The user's Events as the receiver got them, each checked with the official Standard Webhooks verifier. */
  const eventsOf = (userId: string) =>
    receiver.deliveries
      .filter((d) => d.body.userId === userId)
      .map((d: ReceivedRequest) => new Webhook(secret).verify(d.rawBody, d.headers as Record<string, string>))
      .map(
        (body) =>
          body as {
            eventId: string;
            eventName: string;
            eventTargetId: string;
            data: Record<string, unknown>;
          },
      );

  it('funds, issues, authorizes, clears, reverses and refunds, delivering each Event signed with its fields', async () => {
    // Steps 2-3 (user, KYC, wallet), then 4: fund the wallet on-chain.
    const holder = await activeUserWithWallet(h);
    const deposit = await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: 100 });
    expect(deposit.status).toBe(201);
    // Step 5: a card once KYC is approved and the wallet has funds.
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    const cardId: string = card.body.id;

    // Step 8: a payment the wallet covers...
    const paid = await post('/v1/simulate/authorization', { cardId, amount: 25, currency: 'USD', merchant });
    expect(paid.status).toBe(200);
    expect(paid.body.network).toMatchObject({ requestMti: '0100', responseCode: '00' });
    const paymentId: string = paid.body.authorization.id;
    // ...one it does not (75 left available)...
    const tooMuch = await post('/v1/simulate/authorization', {
      cardId,
      amount: 80,
      currency: 'USD',
      merchant,
    });
    expect(tooMuch.body.network).toMatchObject({ responseCode: '51' });
    // ...a foreign one converted at the program's rate with its fx fee, reversed in part then in full...
    const abroad = await post('/v1/simulate/authorization', {
      cardId,
      amount: 20,
      currency: 'EUR',
      merchant: { name: 'Boulangerie', city: 'Lyon', country: 'FR', mcc: '5462' },
    });
    expect(abroad.body.network).toMatchObject({ responseCode: '00' });
    const abroadId: string = abroad.body.authorization.id;
    expect(abroad.body.authorization).toMatchObject({ merchantAmount: '20.00', merchantCurrency: 'EUR' });
    expect(
      (await post('/v1/simulate/authorization/reversal', { authorizationId: abroadId, amount: 5 })).body,
    ).toMatchObject({ network: { requestMti: '0400', responseCode: '00' } });
    expect((await post('/v1/simulate/authorization/reversal', { authorizationId: abroadId })).status).toBe(
      200,
    );
    // ...the payment cleared (settlement confirmed), and a refund credited.
    const cleared = await post('/v1/simulate/authorization/clearing', { authorizationId: paymentId });
    expect(cleared.body.delivered).toBe(true);
    const refund = await post('/v1/simulate/authorization/refund', {
      cardId,
      amount: 5,
      currency: 'USD',
      merchant,
      authorizationId: paymentId,
    });
    expect(refund.body.network).toMatchObject({ responseCode: '00' });
    expect(refund.body.authorization).toMatchObject({ type: 'refund', originalAuthorizationId: paymentId });

    // The wallet, to the cent: 100 - 25 cleared + 5 refunded, nothing held.
    await walletSettled(h, holder.walletId, { balance: 80, availableBalance: 80 });

    // Delivered in the log's order: the 8 cardAuthorization Events, the last one's balance.updated after it.
    await waitFor(
      () => {
        const names = eventsOf(holder.userId).map((e) => e.eventName);
        const authorizations = names.filter((name) => name.startsWith('cardAuthorization.')).length;
        const lastAuthorization = names.findLastIndex((name) => name.startsWith('cardAuthorization.'));
        return authorizations >= 8 && names.indexOf('balance.updated', lastAuthorization) > lastAuthorization;
      },
      {
        what: 'every cardAuthorization Event of the journey delivered, each followed by its balance.updated',
      },
    );
    const events = eventsOf(holder.userId);
    const names = events.map((e) => e.eventName);
    expect(names).toEqual(
      expect.arrayContaining(['blockchainTransaction.confirmed', 'card.created', 'balance.updated']),
    );

    const authorizationEvents = events.filter((e) => e.eventName.startsWith('cardAuthorization.'));
    expect(authorizationEvents.map((e) => [e.eventName, e.eventTargetId])).toEqual([
      ['cardAuthorization.confirmed', paymentId],
      ['cardAuthorization.rejected', tooMuch.body.authorization.id],
      ['cardAuthorization.confirmed', abroadId],
      ['cardAuthorization.reversed', abroadId],
      ['cardAuthorization.reversed', abroadId],
      ['cardAuthorization.cleared', paymentId],
      // A refund is credited at once: decided and cleared together.
      ['cardAuthorization.confirmed', refund.body.authorization.id],
      ['cardAuthorization.cleared', refund.body.authorization.id],
    ]);

    // Spec part 6 fields on the decisions.
    const [confirmed, rejected, foreign] = authorizationEvents;
    expect(confirmed).toMatchObject({ eventId: expect.any(String), userId: holder.userId });
    expect(confirmed.data).toMatchObject({
      id: paymentId,
      cardId,
      merchantName: 'Corner Cafe',
      merchantMcc: '5814',
      amount: 25,
      currency: 'USD',
      merchantAmount: '25.00',
      merchantCurrency: 'USD',
      merchant,
      type: 'payment',
      fee: {},
    });
    expect(confirmed.data.decidedAt).toMatch(SPEC_INSTANT);
    expect(confirmed.data).not.toHaveProperty('declineReasonCode');
    expect(rejected.data).toMatchObject({
      declineReasonCode: 'insufficientFund',
      amount: 80,
      type: 'payment',
    });
    expect(rejected.data.decidedAt).toMatch(SPEC_INSTANT);
    // 20 EUR at the sandbox program's rate, with the fx fee in 6 implied decimals.
    expect(foreign.data).toMatchObject({ merchantAmount: '20.00', merchantCurrency: 'EUR', currency: 'USD' });
    const fx = (foreign.data.fee as { fx: number }).fx;
    expect([Number.isInteger(fx), fx > 0]).toEqual([true, true]);
    expect(authorizationEvents[7].data).toMatchObject({ type: 'refund', amount: 5, status: 'cleared' });

    // Each card authorization Event is followed (not necessarily at once) by the wallet's balance.updated.
    for (const event of authorizationEvents) {
      const after = names.slice(events.indexOf(event) + 1);
      expect([event.eventName, after.includes('balance.updated')]).toEqual([event.eventName, true]);
    }
    // A decline moves nothing, and still its balance.updated comes right after it: the wallet as it stood
    // then (75 available of 100, the first payment held), in the webhooks and in GET /v1/events.
    const afterDecline = events[events.indexOf(rejected) + 1];
    expect(afterDecline).toMatchObject({
      eventName: 'balance.updated',
      eventTargetId: holder.walletId,
      userId: holder.userId,
      data: expect.objectContaining({ id: holder.walletId, balance: 100, availableBalance: 75 }),
    });
    const listedEvents = (
      await get('/v1/events', { userId: holder.userId, sortBy: 'createdAt', limit: '100' })
    ).body.items as { eventId: string; eventName: string; data: Record<string, unknown> }[];
    const listedDecline = listedEvents.findIndex((e) => e.eventId === rejected.eventId);
    expect(listedEvents[listedDecline + 1]).toMatchObject({
      eventId: afterDecline.eventId,
      eventName: 'balance.updated',
      data: afterDecline.data,
    });
    const lastBalance = events.filter((e) => e.eventName === 'balance.updated').pop();
    expect(lastBalance).toMatchObject({
      eventTargetId: holder.walletId,
      data: expect.objectContaining({ balance: 80 }),
    });

    // The same Events are in the log and the authorizations in /v1/transactions and /v1/authorizations.
    const listed = await get('/v1/authorizations', { userId: holder.userId });
    expect(listed.body.count).toBe(4);
    const transactions = await get('/v1/transactions', { userId: holder.userId });
    expect(transactions.status).toBe(200);
    expect(transactions.body.items.map((t: { type: string }) => t.type)).toEqual(
      expect.arrayContaining(['deposit', 'authorization', 'refund']),
    );
  });
  it("refunds without an original, and refuses to name one the network never carried, another card's or a declined one", async () => {
    const holder = await activeUserWithWallet(h);
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: 10 })).status).toBe(201);
    const cardId = (await post('/v1/cards', { userId: holder.userId, type: 'virtual' })).body.id;
    const otherCardId = (await post('/v1/cards', { userId: holder.userId, type: 'virtual' })).body.id;
    const declined = await post('/v1/simulate/authorization', {
      cardId,
      amount: 50,
      currency: 'USD',
      merchant,
    });
    expect(declined.body.network).toMatchObject({ responseCode: '51' });
    const paid = await post('/v1/simulate/authorization', { cardId, amount: 4, currency: 'USD', merchant });
    const refund = (body: object) =>
      post('/v1/simulate/authorization/refund', { cardId, amount: 1, currency: 'USD', merchant, ...body });

    const unlinked = await refund({});
    expect(unlinked.body.authorization).toMatchObject({ type: 'refund', originalAuthorizationId: null });
    const unknown = await refund({ authorizationId: 'aut-00000000-0000-4000-8000-000000000000' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
    const otherCard = await refund({ cardId: otherCardId, authorizationId: paid.body.authorization.id });
    expect([otherCard.status, otherCard.body.error.code, otherCard.body.error.details?.[0]?.field]).toEqual([
      400,
      'validation_error',
      'authorizationId',
    ]);
    const ofDeclined = await refund({ authorizationId: declined.body.authorization.id });
    expect([ofDeclined.status, ofDeclined.body.error.code]).toEqual([409, 'invalid_state_transition']);
    // Only the unlinked refund reached the wallet: 10 - 4 held + 1.
    await walletSettled(h, holder.walletId, { balance: 11, availableBalance: 7 });
  });
});
