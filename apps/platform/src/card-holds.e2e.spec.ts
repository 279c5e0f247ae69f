import {
  CARD_OPERATIONS_API,
  CARD_VERIFICATION_API,
  type CardOperationsApi,
  type CardVerificationApi,
} from '@cip/cards/contract';
import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { activeUserWithWallet } from './testing/cardholders';
import { Harness, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { itOnOneProcess } from './testing/topology';

// Issue 11: operator holds and the wrong PIN/CVV2 block, as a distributor meets them over /v1 and its
// webhooks. The operator's holds go through the operator API (the dashboard's card actions; the CLI's
// `cards hold` calls the same service); the PIN/CVV2 outcomes through the cards contract the authorizations
// use, in process (one-process only; the block through real payments on both: authorization-simulations-pin).

describe('card holds and the PIN/CVV2 block, over /v1 and webhooks', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  const json = { 'content-type': 'application/json' };
  const OPERATOR = { operator: 'ada', reason: 'Case CMP-118' };

  beforeAll(async () => {
    h = await startHarness({ allowPrivateWebhookUrls: true });
    receiver = await new WebhookReceiver().start();
    const subscription = await post('/v1/webhook-subscriptions', { url: receiver.url });
    expect(subscription.body).toMatchObject({ status: 'active' });
  });
  afterAll(async () => {
    await h.close();
    await receiver.stop();
  });

  const post = (path: string, body: object = {}) =>
    h.http
      .post(path)
      .set({ 'x-api-key': SANDBOX_KEY, ...json })
      .send(body);
  const get = (path: string, query: Record<string, string> = {}) =>
    h.http.get(path).query(query).set({ 'x-api-key': SANDBOX_KEY });
  /** A compliance officer's card hold action over the operator API (`place`, or `lift` the named hold). */
  const operatorHold = async (cardId: string, action: 'place' | 'lift', hold: string) => {
    const path = `/operator/v1/environments/sandbox/cards/${cardId}/holds`;
    const response = await h.operatorHttp
      .post(action === 'place' ? path : `${path}/${hold}/lift`)
      .set((await h.operatorAdmin()).headers)
      .send(action === 'place' ? { hold, reason: OPERATOR.reason } : { reason: OPERATOR.reason });
    expect(response.status).toBe(200);
    return response.body;
  };
  const operations = () => h.platform.app.get<CardOperationsApi>(CARD_OPERATIONS_API);
  const verification = () => h.platform.app.get<CardVerificationApi>(CARD_VERIFICATION_API);

  async function activeCard(): Promise<{ id: string; userId: string }> {
    const { userId } = await activeUserWithWallet(h);
    const card = await post('/v1/cards', { userId, type: 'virtual' });
    expect(card.body).toMatchObject({ status: 'active', blocks: [] });
    return card.body;
  }

  /** The card Events delivered to the receiver for one card, in the order received, once acknowledged. */
  const delivered = (cardId: string) =>
    receiver
      .acknowledged()
      .filter((request) => request.body.eventTargetId === cardId)
      .map((request) => request.body as { eventName: string; data: Record<string, unknown> });
  const waitForDeliveries = (cardId: string, names: string[]) =>
    waitFor(() => delivered(cardId).length >= names.length, { what: `${names.join(', ')} delivered` });

  it('a compliance hold freezes the card and refuses its unfreeze until an operator lifts it; webhooks follow', async () => {
    const card = await activeCard();

    const held = await operatorHold(card.id, 'place', 'compliance_hold');
    expect(held).toMatchObject({ status: 'frozen', blocks: ['compliance_hold'] });
    expect((await get(`/v1/cards/${card.id}`)).body).toMatchObject({
      status: 'frozen',
      blocks: ['compliance_hold'],
    });

    const refused = await post(`/v1/cards/${card.id}/unfreeze`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('card_unfreeze_blocked_error');
    expect(refused.body.error.message).toMatch(
      /cannot be unfrozen due to additional blocks: compliance_hold/,
    );
    expect((await get(`/v1/cards/${card.id}`)).body.status).toBe('frozen');

    // Lifted: still frozen, and its distributor may unfreeze it now.
    const lifted = await operatorHold(card.id, 'lift', 'compliance_hold');
    expect(lifted).toMatchObject({ status: 'frozen', blocks: [] });
    const unfrozen = await post(`/v1/cards/${card.id}/unfreeze`);
    expect(unfrozen.status).toBe(200);
    expect(unfrozen.body).toMatchObject({ status: 'active', blocks: [] });

    const names = ['card.created', 'card.frozen', 'card.unfrozen'];
    await waitForDeliveries(card.id, names);
    const events = delivered(card.id);
    expect(events.map((event) => event.eventName)).toEqual(names);
    expect(events[1].data).toMatchObject({ id: card.id, status: 'frozen', blocks: ['compliance_hold'] });
    expect(events[2].data).toMatchObject({ id: card.id, status: 'active', blocks: [] });
    // The operator's identity and reason stay on the card's events: a distributor sees the block only.
    expect(JSON.stringify(events)).not.toContain('CMP-118');
  });

  itOnOneProcess(
    'records PIN/CVV2 outcomes through the in-process cards contract (its once-per-authorization rule)',
    'three wrong PIN/CVV2 entries block the card (card.blocked); only the operator unblocks it (card.unblocked)',
    async () => {
      const card = await activeCard();
      const record = (authorizationId: string, ok: boolean, method: 'pin' | 'cvv2' = 'pin') =>
        verification().recordVerification('sandbox', card.id, { authorizationId, method, ok });

      await record('aut-1', false);
      await record('aut-2', false, 'cvv2');
      // A retried record of the same authorization does not count again.
      expect(await record('aut-2', false, 'cvv2')).toMatchObject({ blocked: false, consecutiveFailures: 2 });
      expect(await record('aut-3', false)).toMatchObject({ blocked: true, status: 'frozen' });
      expect((await get(`/v1/cards/${card.id}`)).body).toMatchObject({
        status: 'frozen',
        blocks: ['pin_cvv_attempts'],
      });

      const refused = await post(`/v1/cards/${card.id}/unfreeze`);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('card_unfreeze_blocked_error');
      expect(refused.body.error.message).toMatch(/pin_cvv_attempts/);

      const unblocked = await operations().unblockCard('sandbox', card.id, OPERATOR);
      expect(unblocked).toMatchObject({ status: 'active', blocks: [] });
      expect((await get(`/v1/cards/${card.id}`)).body).toMatchObject({ status: 'active', blocks: [] });

      const names = ['card.created', 'card.blocked', 'card.unblocked'];
      await waitForDeliveries(card.id, names);
      const events = delivered(card.id);
      expect(events.map((event) => event.eventName)).toEqual(names);
      expect(events[1].data).toMatchObject({ id: card.id, status: 'frozen', blocks: ['pin_cvv_attempts'] });
      expect(events[2].data).toMatchObject({ id: card.id, status: 'active', blocks: [] });
      // And in the Events list, filtered by the new name.
      const listed = await get('/v1/events', { eventName: 'card.unblocked', userId: card.userId });
      expect(listed.body.items.map((event: { eventTargetId: string }) => event.eventTargetId)).toEqual([
        card.id,
      ]);
    },
  );
});
