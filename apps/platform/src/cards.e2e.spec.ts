import { waitFor } from '@cip/shared/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  activeUserWithWallet,
  changeUserStatusAsOperator,
  distributorCalls,
  filesUnder,
  vaultSecretsOf,
} from './testing/cardholders';
import { Harness, newUserBody, PRODUCTION_KEY, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { databaseTablesContaining } from './testing/split-engines';

describe('cards over /v1, as a distributor uses them (integration order, step 5)', () => {
  let h: Harness;
  const json = { 'content-type': 'application/json' };
  /** Every response body of the flow, for the PAN grep. */
  const bodies: string[] = [];
  const seen = <T extends { text: string }>(response: T): T => {
    bodies.push(response.text);
    return response;
  };

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const { post, get } = distributorCalls(() => h, seen);

  const eventNames = async (userId: string) =>
    (await get('/v1/events', { userId, limit: '100', sortBy: 'createdAt' })).body.items
      .filter((event: { eventName: string }) => event.eventName.startsWith('card.'))
      .map((event: { eventName: string; eventTargetId: string; data: Record<string, unknown> }) => event);

  /** The card's PAN, read from the vault the way only the hosted reveal page may. */
  const panOf = async (cardId: string): Promise<string> => (await vaultSecretsOf(h, cardId)).pan;

  it('issues a virtual card, freezes, unfreezes and revokes it, with an Event for each; no PAN anywhere', async () => {
    const { userId, walletId } = await activeUserWithWallet(h, { seen });

    const created = await post('/v1/cards', { userId, type: 'virtual' });
    expect(created.status).toBe(201);
    const card = created.body;
    expect(card).toMatchObject({
      userId,
      walletId,
      type: 'virtual',
      status: 'active',
      bin: '40000099',
      maskedPan: expect.stringMatching(/^400000\*{6}\d{4}$/),
    });
    expect(card.id).toMatch(/^crd-[0-9a-f-]{36}$/);
    expect(card.maskedPan.endsWith(card.last4)).toBe(true);
    expect(created.headers.location).toBe(`/v1/cards/${card.id}`);
    expect(card).not.toHaveProperty('distributorId');
    expect(card).not.toHaveProperty('vaultRef');

    const pan = await panOf(card.id);
    expect(pan).toMatch(/^40000099\d{8}$/);
    expect(pan.slice(-4)).toBe(card.last4);

    // The reveal flow: the API hands out a link only; the PAN is in the page behind it, once.
    const link = await post(`/v1/cards/${card.id}/reveal`);
    expect(link.status).toBe(201);
    const revealPath = new URL(link.body.url).pathname;
    expect((await h.http.get(revealPath)).status).toBe(200); // the page's button: the link is not used yet
    const revealPage = await h.http.post(revealPath).type('form').send('');
    expect(revealPage.status).toBe(200);
    expect(seen(await h.http.post(revealPath).type('form').send('')).status).toBe(410);

    // Virtual cards are active at once: activating again is accepted and changes nothing.
    expect((await post(`/v1/cards/${card.id}/activate`)).body).toMatchObject({ status: 'active' });
    expect((await post(`/v1/cards/${card.id}/freeze`)).body).toMatchObject({ status: 'frozen' });
    expect((await get(`/v1/cards/${card.id}`)).body).toMatchObject({ status: 'frozen' });
    expect(
      (await get('/v1/cards', { userId, status: 'frozen' })).body.items.map((c: { id: string }) => c.id),
    ).toEqual([card.id]);
    expect((await post(`/v1/cards/${card.id}/unfreeze`)).body).toMatchObject({ status: 'active' });
    expect((await post(`/v1/cards/${card.id}/revoke`)).body).toMatchObject({ status: 'revoked' });

    const refused = await post(`/v1/cards/${card.id}/unfreeze`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state_transition');
    expect((await get(`/v1/cards/${card.id}`)).body).toMatchObject({ status: 'revoked' });

    const events = await eventNames(userId);
    expect(events.map((event: { eventName: string }) => event.eventName)).toEqual([
      'card.created',
      'card.frozen',
      'card.unfrozen',
      'card.revoked',
    ]);
    for (const event of events) expect(event).toMatchObject({ eventTargetId: card.id, userId });
    expect(events[1].data).toMatchObject({ id: card.id, status: 'frozen', last4: card.last4 });
    expect(events[1].data).not.toHaveProperty('distributorId');

    // Nothing but the vault holds the number, and the vault only sealed: every SQLite file (the vault's
    // included, WAL files too), or every table of the topology's PostgreSQL database, and every response.
    const tables = await databaseTablesContaining(h.dataDir, pan);
    if (tables) {
      // The search can see what is stored in clear: the card's last four digits are in the event log.
      expect(await databaseTablesContaining(h.dataDir, `"last4": "${card.last4}"`)).toContain(
        'cip_sandbox.cip_events',
      );
      expect(tables).toEqual([]);
    }
    const files = filesUnder(h.dataDir);
    if (!tables) {
      expect(files).toEqual(expect.arrayContaining([join(h.dataDir, 'sandbox-vault.sqlite')]));
      expect(files.some((file) => readFileSync(file).includes(`"last4":"${card.last4}"`))).toBe(true);
    }
    expect(files.filter((file) => readFileSync(file).includes(pan))).toEqual([]);
    expect(bodies.filter((body) => body.includes(pan))).toEqual([]);
    // Read as text (the page shows the number in groups of four elements), only the reveal page has it.
    const asText = (body: string) => body.replace(/<[^>]+>/g, '');
    expect([...bodies, revealPage.text].filter((body) => asText(body).includes(pan))).toEqual([
      revealPage.text,
    ]);
    expect(bodies.some((body) => body.includes(card.last4))).toBe(true);
  });

  it('refuses a card to a user who is not active, or who does not exist, and records nothing', async () => {
    const user = await post('/v1/users', newUserBody());
    const onboarding = await post('/v1/cards', { userId: user.body.id, type: 'virtual' });
    expect(onboarding.status).toBe(409);
    expect(onboarding.body.error.code).toBe('user_not_active');

    const missing = await post('/v1/cards', {
      userId: 'usr-00000000-0000-4000-8000-000000000000',
      type: 'virtual',
    });
    expect(missing.status).toBe(404);

    const physical = await post('/v1/cards', { userId: user.body.id, type: 'physical' });
    expect(physical.status).toBe(409);
    expect(physical.body.error.code).toBe('user_not_active');

    expect((await get('/v1/cards', { userId: user.body.id })).body.items).toEqual([]);
  });

  it("answers 404 for another distributor's card and never lists it", async () => {
    const other = await h.newDistributor({ allowedCountries: ['FR'] });
    const { userId } = await activeUserWithWallet(h, { key: other.sandboxKey, seen });
    const theirs = (await post('/v1/cards', { userId, type: 'virtual' }, other.sandboxKey)).body;

    expect((await get(`/v1/cards/${theirs.id}`)).status).toBe(404);
    const freeze = await post(`/v1/cards/${theirs.id}/freeze`);
    expect(freeze.status).toBe(404);
    expect(freeze.body.error.code).toBe('not_found');
    expect((await get('/v1/cards', { userId })).body.items).toEqual([]);
    expect((await get(`/v1/cards/${theirs.id}`, {}, other.sandboxKey)).body.status).toBe('active');
    // Nor can it be reached from the other environment of the same distributor.
    expect((await get(`/v1/cards/${theirs.id}`, {}, PRODUCTION_KEY)).status).toBe(404);
  });

  describe('a stopped user stops all their cards (the user-stopped-cards saga)', () => {
    /** The user's status change as staff make it (operator API); the saga then acts on its own. */
    async function setUserStatus(userId: string, to: 'active' | 'frozen' | 'disabled', reason?: string) {
      expect((await changeUserStatusAsOperator(h, userId, to, reason)).status).toBe(200);
    }
    const blocksOf = async (cardId: string): Promise<string[]> =>
      (await get(`/v1/cards/${cardId}`)).body.blocks;
    const statusOf = async (cardId: string) => (await get(`/v1/cards/${cardId}`)).body.status;

    it('freezes the cards of a frozen user, refuses their unfreeze until the user is back, and unfreezes nothing itself', async () => {
      const { userId } = await activeUserWithWallet(h, { seen });
      const active = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      const frozenByDistributor = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      const revoked = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      expect((await post(`/v1/cards/${frozenByDistributor.id}/freeze`)).status).toBe(200);
      expect((await post(`/v1/cards/${revoked.id}/revoke`)).status).toBe(200);

      await setUserStatus(userId, 'frozen', 'suspicious activity');
      // The saga freezes them, then the Event recorder records it: what the distributor sees.
      await waitFor(
        async () =>
          (await eventNames(userId)).filter((e: { eventName: string }) => e.eventName === 'card.frozen')
            .length === 2 && (await blocksOf(frozenByDistributor.id)).includes('user_frozen'),
        { what: 'both cards frozen by the saga, with their card.frozen Events' },
      );
      expect(await statusOf(active.id)).toBe('frozen');
      expect(await statusOf(frozenByDistributor.id)).toBe('frozen');
      expect(await statusOf(revoked.id)).toBe('revoked');
      expect(
        (await get('/v1/cards', { userId, status: 'frozen' })).body.items
          .map((c: { id: string }) => c.id)
          .sort(),
      ).toEqual([active.id, frozenByDistributor.id].sort());

      for (const card of [active, frozenByDistributor]) {
        const refused = await post(`/v1/cards/${card.id}/unfreeze`);
        expect(refused.status).toBe(409);
        expect(refused.body.error.code).toBe('card_unfreeze_blocked_error');
        expect(refused.body.error.message).toMatch(/cannot be unfrozen due to additional blocks/);
        expect(await statusOf(card.id)).toBe('frozen');
      }

      const frozenEvents = (await eventNames(userId)).filter(
        (event: { eventName: string }) => event.eventName === 'card.frozen',
      );
      expect(frozenEvents.map((event: { eventTargetId: string }) => event.eventTargetId).sort()).toEqual(
        [active.id, frozenByDistributor.id].sort(),
      );

      // Back to active: the cards stay frozen, and their distributor may now unfreeze them.
      await setUserStatus(userId, 'active');
      await waitFor(async () => !(await blocksOf(active.id)).includes('user_frozen'), {
        what: "the saga lifting the cards' user_frozen block",
      });
      expect(await statusOf(active.id)).toBe('frozen');
      const unfrozen = await post(`/v1/cards/${active.id}/unfreeze`);
      expect(unfrozen.status).toBe(200);
      expect(unfrozen.body.status).toBe('active');
    });

    it('revokes every card of a disabled user, once, with a card.revoked Event each', async () => {
      const { userId } = await activeUserWithWallet(h, { seen });
      const first = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      const second = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      expect((await post(`/v1/cards/${second.id}/freeze`)).status).toBe(200);

      await setUserStatus(userId, 'disabled');
      await waitFor(
        async () =>
          (await eventNames(userId)).filter((e: { eventName: string }) => e.eventName === 'card.revoked')
            .length >= 2,
        { what: 'card.revoked Events of both cards' },
      );
      expect(await statusOf(first.id)).toBe('revoked');
      expect(await statusOf(second.id)).toBe('revoked');
      const revokedEvents = (await eventNames(userId)).filter(
        (event: { eventName: string }) => event.eventName === 'card.revoked',
      );
      expect(revokedEvents.map((event: { eventTargetId: string }) => event.eventTargetId).sort()).toEqual(
        [first.id, second.id].sort(),
      );
      expect(revokedEvents[0].data).toMatchObject({ status: 'revoked', userId });
    });
  });

  describe('spending controls (PUT /v1/cards/{id}/spending-controls)', () => {
    const put = async (path: string, body: unknown, key = SANDBOX_KEY) =>
      seen(
        await h.http
          .put(path)
          .set({ 'x-api-key': key, ...json })
          .send(body as object),
      );
    const RESTRICTED = ['quasi_cash', 'money_transfer', 'gambling', 'weapons', 'crypto'];

    it('shows the program defaults, replaces them with limits in USD and blocked groups, with an Event', async () => {
      const { userId } = await activeUserWithWallet(h, { seen });
      const card = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      expect(card.spendingControls).toEqual({
        limits: [],
        blockedMccGroups: RESTRICTED,
        blockedMccs: [],
        allowedMccs: [],
      });

      const controls = {
        limits: [
          { amount: 250.5, interval: 'per_authorization' },
          { amount: 1000, interval: 'monthly' },
        ],
        blockedMccGroups: ['gambling', 'crypto'],
        blockedMccs: ['5812'],
      };
      const updated = await put(`/v1/cards/${card.id}/spending-controls`, controls);
      expect(updated.status).toBe(200);
      const expected = { ...controls, allowedMccs: [] };
      expect(updated.body.spendingControls).toEqual(expected);
      expect((await get(`/v1/cards/${card.id}`)).body.spendingControls).toEqual(expected);
      expect((await get('/v1/cards', { userId })).body.items[0].spendingControls).toEqual(expected);

      // The same controls again change nothing: one Event only.
      expect((await put(`/v1/cards/${card.id}/spending-controls`, controls)).status).toBe(200);
      const events = (await eventNames(userId)).filter(
        (event: { eventName: string }) => event.eventName === 'card.spendingControlsUpdated',
      );
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ eventTargetId: card.id, userId });
      expect(events[0].data).toMatchObject({ id: card.id, spendingControls: expected });
    });

    it('refuses a bad MCC, a bad amount or an amount too large, naming the field, and changes nothing', async () => {
      const { userId } = await activeUserWithWallet(h, { seen });
      const card = (await post('/v1/cards', { userId, type: 'virtual' })).body;
      const path = `/v1/cards/${card.id}/spending-controls`;

      const badMcc = await put(path, { blockedMccs: ['5812', '58x2'] });
      expect(badMcc.status).toBe(400);
      expect(badMcc.body.error.code).toBe('validation_error');
      expect(badMcc.body.error.details).toEqual([expect.objectContaining({ field: 'blockedMccs.1' })]);

      const cents = await put(path, { limits: [{ amount: 10.005, interval: 'daily' }] });
      expect(cents.status).toBe(400);
      expect(cents.body.error.details).toEqual([expect.objectContaining({ field: 'limits.0.amount' })]);

      const notAList = await put(path, { limits: true });
      expect(notAList.status).toBe(400);
      expect(notAList.body.error.details).toEqual([
        expect.objectContaining({ field: 'limits', message: expect.stringMatching(/must be an array/) }),
      ]);

      const badInterval = await put(path, { limits: [{ amount: 10, interval: 'hourly' }] });
      expect(badInterval.status).toBe(400);
      expect(badInterval.body.error.details[0].field).toBe('limits.0.interval');

      const tooLarge = await put(path, { limits: [{ amount: 1_000_000_000.01, interval: 'daily' }] });
      expect(tooLarge.status).toBe(422);
      expect(tooLarge.body.error.code).toBe('amount_too_large');

      expect((await get(`/v1/cards/${card.id}`)).body.spendingControls.limits).toEqual([]);
    });

    it("answers 404 for another distributor's card and leaves it as it was", async () => {
      const other = await h.newDistributor({ allowedCountries: ['FR'] });
      const { userId } = await activeUserWithWallet(h, { key: other.sandboxKey, seen });
      const theirs = (await post('/v1/cards', { userId, type: 'virtual' }, other.sandboxKey)).body;
      const refused = await put(`/v1/cards/${theirs.id}/spending-controls`, { blockedMccGroups: [] });
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('not_found');
      expect(
        (await get(`/v1/cards/${theirs.id}`, {}, other.sandboxKey)).body.spendingControls.blockedMccGroups,
      ).toEqual(RESTRICTED);
    });
  });
});
