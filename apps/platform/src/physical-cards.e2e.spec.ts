import { cardDecider } from '@cip/cards/domain';
import { CardsService } from '@cip/cards/service';
import { handleCommand } from '@cip/shared/eventing';
import { ConsumerHost } from '@cip/shared/infrastructure';
import { waitFor } from '@cip/shared/testing';
import {
  activeUserWithWallet,
  distributorCalls,
  eraseAsOperator,
  vaultSecretsOf,
  withSandboxLog,
} from './testing/cardholders';
import { Harness, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { itOnOneProcess } from './testing/topology';

/** A card Event as `/v1/events` lists it. */
interface CardEvent {
  eventName: string;
  eventTargetId: string;
  data: Record<string, unknown>;
}

describe('physical cards, their shipment, and reissues over /v1 (issue 11)', () => {
  let h: Harness;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const { post, get } = distributorCalls(() => h);
  /**
   * Before checking that a saga did NOT change a card: on the one-process platform every consumer has caught
   * up (drain). The split topology has no drain across processes and a card left as it is gives no signal:
   * the check there reads at once. A change a saga makes is waited for on the card itself (`cardShows`).
   */
  const consumersCaughtUp = async () => {
    if (h.topology === 'one-process') await h.platform.app.get(ConsumerHost).drain('sandbox');
  };
  const cardShows = (cardId: string, expected: Record<string, unknown>, key = SANDBOX_KEY) =>
    waitFor(
      async () => {
        const card = (await get(`/v1/cards/${cardId}`, {}, key)).body;
        return Object.entries(expected).every(([field, value]) => card[field] === value);
      },
      { what: `card ${cardId} showing ${JSON.stringify(expected)}`, intervalMs: 50 },
    );

  const cardEvents = async (userId: string, key = SANDBOX_KEY): Promise<CardEvent[]> =>
    (await get('/v1/events', { userId, limit: '100', sortBy: 'createdAt' }, key)).body.items.filter(
      (event: CardEvent) => event.eventName.startsWith('card.'),
    );

  /** The card's PAN, read from the vault the way only the hosted reveal page may. */
  const panOf = async (cardId: string): Promise<string> => (await vaultSecretsOf(h, cardId)).pan;

  const ADDRESS = {
    addressLine1: '12 rue de la Paix',
    city: 'Paris',
    state: 'IDF',
    postalCode: '75002',
    country: 'FR',
  };

  it('ships a physical card to the address a shipping KYC verified; it is activated once shipped', async () => {
    const other = await h.newDistributor({ allowedCountries: ['FR'] });
    const key = other.sandboxKey;
    const { userId, walletId } = await activeUserWithWallet(h, { key });

    // No verified address yet, and a program that is not B2B cannot name one.
    const none = await post('/v1/cards', { userId, type: 'physical' }, key);
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('shipping_address_required');
    expect(none.body.error.message).toMatch(/shipping KYC/);
    const named = await post('/v1/cards', { userId, type: 'physical', address: ADDRESS }, key);
    expect(named.status).toBe(409);
    expect(named.body.error.code).toBe('shipping_address_required');

    const kyc = await h.http
      .put('/v1/kycs')
      .set({ 'x-api-key': key, ...json })
      .send({ userId, type: 'shipping' });
    expect(kyc.status).toBe(201);
    expect((await post(`/v1/simulate/kyc/${kyc.body.id}/complete`, {}, key)).status).toBe(200);
    expect((await post(`/v1/simulate/kyc/${kyc.body.id}/approve`, {}, key)).status).toBe(200);
    const verified = (await get(`/v1/users/${userId}`, {}, key)).body.shippingAddress;
    expect(verified).toMatchObject({ addressLine1: '1 Sandbox Street', country: 'FR' });

    const longState = await post(
      '/v1/cards',
      { userId, type: 'physical', address: { ...verified, state: 'Ile-de-France' } },
      key,
    );
    expect(longState.status).toBe(400);
    expect(longState.body.error.code).toBe('validation_error');
    expect(longState.body.error.details).toEqual([expect.objectContaining({ field: 'address.state' })]);
    expect((await get('/v1/cards', { userId }, key)).body.items).toEqual([]);

    // Repeating the verified address is the same as omitting it.
    const created = await post('/v1/cards', { userId, type: 'physical', address: verified }, key);
    expect(created.status).toBe(201);
    const card = created.body;
    expect(card).toMatchObject({
      userId,
      walletId,
      type: 'physical',
      status: 'inactive',
      tier: 'standard',
      deliveryType: 'ship_to_user',
      shippingAddress: verified,
      replacesCardId: null,
      shipment: {
        status: expect.stringMatching(/^(pending|submitted)$/),
        trackingNumber: null,
        requestedShippingMethod: 'standard',
        actualShippingMethod: null,
        shippedAt: null,
      },
    });

    const early = await post(`/v1/cards/${card.id}/activate`, {}, key);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('invalid_state_transition');
    expect(early.body.error.message).toMatch(/has not been shipped yet/);

    const shipped = await post(`/v1/simulate/cards/${card.id}/ship`, { shippingMethod: 'express' }, key);
    expect(shipped.status).toBe(200);
    expect(shipped.body.shipment).toMatchObject({
      status: 'shipped',
      trackingNumber: expect.stringMatching(/^SBX[0-9A-F]{12}$/),
      requestedShippingMethod: 'standard',
      actualShippingMethod: 'express',
      shippedAt: expect.any(String),
    });
    // The same notice again changes nothing; a new tracking number is an update.
    expect(
      (await post(`/v1/simulate/cards/${card.id}/ship`, { shippingMethod: 'express' }, key)).status,
    ).toBe(200);
    const retracked = await post(
      `/v1/simulate/cards/${card.id}/ship`,
      { trackingNumber: '1Z999AA10123456784' },
      key,
    );
    expect(retracked.body.shipment).toMatchObject({
      trackingNumber: '1Z999AA10123456784',
      actualShippingMethod: 'express',
    });

    const activated = await post(`/v1/cards/${card.id}/activate`, {}, key);
    expect(activated.status).toBe(200);
    expect(activated.body.status).toBe('active');

    const events = await cardEvents(userId, key);
    expect(events.map((event) => event.eventName)).toEqual([
      'card.created',
      'card.shipped',
      'card.trackingNumberUpdated',
      'card.trackingNumberUpdated',
      'card.activated',
    ]);
    for (const event of events) expect(event.eventTargetId).toBe(card.id);
    expect(events[1].data).toMatchObject({ id: card.id, shipment: { status: 'shipped' } });
    expect(events[2].data).toMatchObject({
      id: card.id,
      trackingNumber: shipped.body.shipment.trackingNumber,
      requestedShippingMethod: 'standard',
      actualShippingMethod: 'express',
    });
    expect(events[3].data).toMatchObject({ trackingNumber: '1Z999AA10123456784' });

    // The address is the user's personal data: sealed in the card's events as the log stores them.
    const [stored] = await withSandboxLog(h, (log) => log.storedEventStore.readStream(card.id));
    expect(stored.data).not.toHaveProperty('shippingAddress');
    expect(JSON.stringify(stored.data)).not.toContain('Sandbox Street');
    expect(stored.data).toHaveProperty('personal');
  });

  itOnOneProcess(
    'redelivers the creation to the in-process CardsService',
    'orders each physical card from the card bureau once, however often its creation is delivered',
    async () => {
      const { userId } = await activeUserWithWallet(h);
      const card = (await post('/v1/cards', { userId, type: 'physical', address: ADDRESS })).body;
      await h.platform.app.get(ConsumerHost).drain('sandbox');
      const cards = h.platform.app.get(CardsService);
      const trigger = {
        distributorId: h.distributorId,
        correlationId: 'redelivery',
        causationId: 'redelivery',
      };
      await cards.orderFulfilment('sandbox', card.id, trigger);
      await cards.orderFulfilment('sandbox', card.id, trigger);
      const types = (await withSandboxLog(h, (log) => log.eventStore.readStream(card.id))).map(
        (event) => event.type,
      );
      expect(types).toEqual(['CardCreated', 'CardFulfilmentOrdered']);
      expect((await get(`/v1/cards/${card.id}`)).body.shipment.status).toBe('submitted');
    },
  );

  it('lets a B2B program ship to the address it names, with spending controls from the start', async () => {
    const { userId } = await activeUserWithWallet(h);
    expect((await get(`/v1/users/${userId}`)).body.shippingAddress).toBeNull();
    const controls = { limits: [{ amount: 100, interval: 'daily' }], blockedMccGroups: ['gambling'] };
    const created = await post('/v1/cards', {
      userId,
      type: 'physical',
      tier: 'standard',
      deliveryType: 'ship_to_user',
      address: ADDRESS,
      spendingControls: controls,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      shippingAddress: ADDRESS,
      spendingControls: { ...controls, blockedMccs: [], allowedMccs: [] },
    });
    // The user's own address is left as it was.
    expect((await get(`/v1/users/${userId}`)).body.shippingAddress).toBeNull();
  });

  it('refuses bad spending controls or physical fields on a virtual card, naming the field, and issues nothing', async () => {
    const { userId } = await activeUserWithWallet(h);
    const badControls = await post('/v1/cards', {
      userId,
      type: 'virtual',
      spendingControls: { limits: [{ amount: 10, interval: 'hourly' }] },
    });
    expect(badControls.status).toBe(400);
    expect(badControls.body.error.details).toEqual([
      expect.objectContaining({ field: 'spendingControls.limits.0.interval' }),
    ]);
    const badAmount = await post('/v1/cards', {
      userId,
      type: 'virtual',
      spendingControls: { limits: [{ amount: 10.005, interval: 'daily' }] },
    });
    expect(badAmount.status).toBe(400);
    expect(badAmount.body.error.details).toEqual([
      expect.objectContaining({ field: 'spendingControls.limits.0.amount' }),
    ]);
    const virtualWithTier = await post('/v1/cards', { userId, type: 'virtual', tier: 'standard' });
    expect(virtualWithTier.status).toBe(400);
    expect(virtualWithTier.body.error.details).toEqual([expect.objectContaining({ field: 'tier' })]);
    expect((await get('/v1/cards', { userId })).body.items).toEqual([]);
  });

  it('refuses to ship a virtual card', async () => {
    const { userId } = await activeUserWithWallet(h);
    const card = (await post('/v1/cards', { userId, type: 'virtual' })).body;
    const refused = await post(`/v1/simulate/cards/${card.id}/ship`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/virtual/);
  });

  it("drops a card's shipping address when its user is erased, in the card and in the list", async () => {
    const { userId } = await activeUserWithWallet(h);
    const card = (await post('/v1/cards', { userId, type: 'physical', address: ADDRESS })).body;
    expect((await get('/v1/cards', { userId })).body.items[0].shippingAddress).toEqual(ADDRESS);

    // The operator's erasure, as `cli users erase` makes it.
    await eraseAsOperator(h, userId, 'DSR-2');
    // A saga revokes the card and drops the address; the card, the list and the Events show it then.
    await cardShows(card.id, { status: 'revoked', shippingAddress: null });

    const read = (await get(`/v1/cards/${card.id}`)).body;
    expect(read).toMatchObject({ status: 'revoked', shippingAddress: null });
    expect((await get('/v1/cards', { userId })).body.items).toEqual([
      expect.objectContaining({ id: card.id, shippingAddress: null }),
    ]);
    const created = (await cardEvents(userId)).find((event) => event.eventName === 'card.created');
    expect(created?.data.shippingAddress).toBeNull();
  });

  describe('reissue (POST /v1/cards/{id}/reissue)', () => {
    it('replaces a lost card: revoked at once, the new one has a new number, the same wallet and controls', async () => {
      const { userId, walletId } = await activeUserWithWallet(h);
      const old = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      const controls = { limits: [{ amount: 50, interval: 'per_authorization' }] };
      expect(
        (
          await h.http
            .put(`/v1/cards/${old.id}/spending-controls`)
            .set({ 'x-api-key': SANDBOX_KEY, ...json })
            .send(controls)
        ).status,
      ).toBe(200);

      const reissued = await post(`/v1/cards/${old.id}/reissue`, { reason: 'lost' });
      expect(reissued.status).toBe(201);
      const card = reissued.body;
      expect(card).toMatchObject({
        userId,
        walletId,
        type: 'virtual',
        status: 'active',
        replacesCardId: old.id,
        spendingControls: { limits: controls.limits },
      });
      expect(card.id).not.toBe(old.id);
      expect(reissued.headers.location).toBe(`/v1/cards/${card.id}`);
      expect(await panOf(card.id)).not.toBe(await panOf(old.id));
      expect((await get(`/v1/cards/${old.id}`)).body.status).toBe('revoked');

      // Asked again: the same replacement.
      expect((await post(`/v1/cards/${old.id}/reissue`, { reason: 'lost' })).body.id).toBe(card.id);
      expect((await get('/v1/cards', { userId })).body.items).toHaveLength(2);

      const events = await cardEvents(userId);
      expect(events.map((event) => [event.eventName, event.eventTargetId])).toEqual([
        ['card.created', old.id],
        ['card.spendingControlsUpdated', old.id],
        ['card.revoked', old.id],
        ['card.created', card.id],
      ]);
      expect(events[3].data).toMatchObject({ replacesCardId: old.id });
    });

    it('finishes a reissue whose call died after naming the replacement: the new card is issued anyway', async () => {
      const { userId, walletId } = await activeUserWithWallet(h);
      const old = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      // What the reissue call appends first (the old card names its replacement, and is revoked as stolen),
      // then the process dies before it issues the new card.
      const now = new Date().toISOString();
      const newCardId = 'crd-3b1f0c2e-6a7d-4e8f-9a0b-1c2d3e4f5a6b';
      await withSandboxLog(h, (log) =>
        handleCommand(
          log.eventStore,
          cardDecider,
          old.id,
          { type: 'ReissueCard', data: { reason: 'stolen', newCardId, now } },
          { occurredAt: now, distributorId: h.distributorId, environment: 'sandbox' },
        ),
      );
      // The reissue saga issues the replacement it names.
      await waitFor(async () => (await get(`/v1/cards/${newCardId}`)).status === 200, {
        what: `the replacement ${newCardId} issued`,
        intervalMs: 50,
      });

      const replacement = await get(`/v1/cards/${newCardId}`);
      expect(replacement.status).toBe(200);
      expect(replacement.body).toMatchObject({ userId, walletId, status: 'active', replacesCardId: old.id });
      expect(await panOf(newCardId)).not.toBe(await panOf(old.id));
      expect((await get(`/v1/cards/${old.id}`)).body.status).toBe('revoked');
      // The client calling again gets that same card.
      expect((await post(`/v1/cards/${old.id}/reissue`, { reason: 'stolen' })).body.id).toBe(newCardId);
    });

    it('keeps a damaged physical card working until its replacement is shipped and activated', async () => {
      const { userId } = await activeUserWithWallet(h);
      const old = (await post('/v1/cards', { userId, type: 'physical', address: ADDRESS })).body;
      expect((await post(`/v1/simulate/cards/${old.id}/ship`, {})).status).toBe(200);
      expect((await post(`/v1/cards/${old.id}/activate`)).body.status).toBe('active');

      const reissued = await post(`/v1/cards/${old.id}/reissue`, { reason: 'damaged' });
      expect(reissued.status).toBe(201);
      const card = reissued.body;
      expect(card).toMatchObject({
        type: 'physical',
        status: 'inactive',
        tier: 'standard',
        shippingAddress: ADDRESS,
        replacesCardId: old.id,
        shipment: { trackingNumber: null },
      });
      expect((await get(`/v1/cards/${old.id}`)).body.status).toBe('active');

      expect((await post(`/v1/simulate/cards/${card.id}/ship`, {})).status).toBe(200);
      await consumersCaughtUp();
      expect((await get(`/v1/cards/${old.id}`)).body.status).toBe('active');

      expect((await post(`/v1/cards/${card.id}/activate`)).body.status).toBe('active');
      // The replaced-card saga revokes the old card once it has read the activation.
      await cardShows(old.id, { status: 'revoked' });
      expect((await get(`/v1/cards/${old.id}`)).body.status).toBe('revoked');
      expect((await get(`/v1/cards/${card.id}`)).body.status).toBe('active');
    });

    it('revokes an expired virtual card as soon as its replacement exists (active at once)', async () => {
      const { userId } = await activeUserWithWallet(h);
      const old = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      const card = (await post(`/v1/cards/${old.id}/reissue`, { reason: 'expired' })).body;
      expect(card).toMatchObject({ status: 'active', replacesCardId: old.id });
      expect((await get(`/v1/cards/${old.id}`)).body.status).toBe('revoked');
    });

    it('refuses a revoked card never replaced, an unknown reason, and a card that is not yours', async () => {
      const { userId } = await activeUserWithWallet(h);
      const card = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      const badReason = await post(`/v1/cards/${card.id}/reissue`, { reason: 'bored' });
      expect(badReason.status).toBe(400);
      expect(badReason.body.error.details).toEqual([expect.objectContaining({ field: 'reason' })]);

      expect((await post(`/v1/cards/${card.id}/revoke`)).status).toBe(200);
      const revoked = await post(`/v1/cards/${card.id}/reissue`, { reason: 'lost' });
      expect(revoked.status).toBe(409);
      expect(revoked.body.error.code).toBe('invalid_state_transition');

      const other = await h.newDistributor({ allowedCountries: ['FR'] });
      const theirs = await post(`/v1/cards/${card.id}/reissue`, { reason: 'lost' }, other.sandboxKey);
      expect(theirs.status).toBe(404);
      expect((await get('/v1/cards', { userId })).body.items).toHaveLength(1);
    });
  });
});
