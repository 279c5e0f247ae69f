import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { activeUserWithWallet, issuerLinked, vaultSecretsOf } from './testing/cardholders';
import {
  Harness,
  newUserBody,
  PRODUCTION_KEY,
  SANDBOX_KEY,
  StaffSession,
  startHarness,
} from './testing/platform-harness';

// Issue 14: the environment pages of the operator API (/operator/v1/environments/{environment}/...) over
// HTTP on the operator app (the one-process platform's, or the dashboard process of the split topology), as
// staff meet them: search, the user page and its timeline, and the support and compliance actions with their
// roles and audit trail. Responses are checked against the operator OpenAPI document.

interface Entry {
  kind: 'event' | 'audit';
  at: string;
  eventId?: string;
  eventName?: string;
  entry?: { id: string; action: string; reason: string; outcome: string; errorCode: string | null };
}

describe('backoffice: environment pages', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  let viewer: StaffSession;
  let support: StaffSession;
  let compliance: StaffSession;
  let subscriptionId: string;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    h = await startHarness({ allowPrivateWebhookUrls: true });
    receiver = await new WebhookReceiver().start();
    const subscription = await v1('/v1/webhook-subscriptions', { url: receiver.url });
    subscriptionId = subscription.body.id;
    [viewer, support, compliance] = [
      await h.signInStaff('viewer'),
      await h.signInStaff('support'),
      await h.signInStaff('compliance'),
    ];
  });
  afterAll(async () => {
    await h.close();
    await receiver.stop();
  });

  const v1 = (path: string, body: object = {}, key = SANDBOX_KEY) =>
    h.http
      .post(path)
      .set({ 'x-api-key': key, ...json })
      .send(body);
  // `/sandbox/...` (and the other environment names tried) under /operator/v1/environments; `/audit` as it is.
  const operatorPath = (path: string) =>
    path === '/audit' ? `/operator/v1${path}` : `/operator/v1/environments${path}`;
  const read = (path: string, query: Record<string, string> = {}, staff = viewer) =>
    h.operatorHttp.get(operatorPath(path)).query(query).set('cookie', staff.cookie);
  const act = (staff: StaffSession, path: string, body: object) =>
    h.operatorHttp
      .post(operatorPath(path))
      .set({ ...staff.headers, ...json })
      .send(body);
  const auditOf = async (query: Record<string, string>) =>
    (await read('/audit', query).expect(200)).body.data as {
      action: string;
      reason: string | null;
      outcome: string;
      errorCode: string | null;
      userId: string | null;
      environment: string | null;
      staff: { id: string; role: string };
    }[];
  const timeline = async (path: string): Promise<Entry[]> => {
    const entries: Entry[] = [];
    let cursor: string | undefined;
    do {
      const page = await read(path, { limit: '5', ...(cursor ? { cursor } : {}) }).expect(200);
      entries.push(...page.body.data);
      cursor = page.body.nextCursor ?? undefined;
    } while (cursor);
    return entries;
  };
  const named = (entries: Entry[]) =>
    entries.map((e) => (e.kind === 'event' ? e.eventName : `${e.entry?.action}:${e.entry?.outcome}`));

  async function cardholder() {
    const phone = { country: '+33', number: String(600_000_000 + Math.floor(Math.random() * 99_999_999)) };
    const holder = await activeUserWithWallet(h, { phone });
    const card = await v1('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    return {
      ...holder,
      phone: `${phone.country}${phone.number}`,
      cardId: card.body.id as string,
      last4: card.body.last4 as string,
    };
  }

  it('finds a user by email, phone and id, and shows the user page with wallet and cards', async () => {
    const holder = await cardholder();
    expect((await v1('/v1/simulate/deposit', { walletId: holder.walletId, amount: 40 })).status).toBe(201);
    for (const q of [holder.email, holder.phone, holder.userId]) {
      const found = await read('/sandbox/search', { q }).expect(200);
      expect(found.body.users.map((u: { id: string }) => u.id)).toEqual([holder.userId]);
    }
    const byLast4 = await read('/sandbox/cards', { last4: holder.last4, userId: holder.userId }).expect(200);
    expect(byLast4.body.data.map((c: { id: string }) => c.id)).toEqual([holder.cardId]);

    const page = await read(`/sandbox/users/${holder.userId}`).expect(200);
    expect(page.body).toMatchObject({
      user: { id: holder.userId, status: 'active', email: holder.email },
      distributor: { id: expect.stringMatching(/^dst-/), name: expect.any(String) },
      kycs: [expect.objectContaining({ type: 'full', status: 'verified' })],
      wallet: { id: holder.walletId, balance: 40, held: 0, available: 40, complianceHold: null },
      holds: [],
      cards: [
        expect.objectContaining({ id: holder.cardId, last4: holder.last4, maskedPan: expect.any(String) }),
      ],
      transactions: [expect.objectContaining({ type: 'deposit', amount: 40 })],
    });
    expect(JSON.stringify(page.body)).not.toMatch(/"pan"|"cvv/i);

    const deposits = await read('/sandbox/transactions', { userId: holder.userId, kind: 'deposit' }).expect(
      200,
    );
    expect(deposits.body.data).toEqual([expect.objectContaining({ kind: 'deposit' })]);
    const one = await read(`/sandbox/transactions/${deposits.body.data[0].id}`).expect(200);
    expect(one.body.transaction).toMatchObject({ amount: 40, userId: holder.userId });
    const createdAt: string = deposits.body.data[0].createdAt;
    const bounded = (query: Record<string, string>) =>
      read('/sandbox/transactions', { userId: holder.userId, ...query }).expect(200);
    expect((await bounded({ from: createdAt, to: createdAt })).body.data).toHaveLength(1);
    const later = new Date(Date.parse(createdAt) + 1).toISOString();
    expect((await bounded({ from: later })).body.data).toEqual([]);
  });

  it('never shows production data on a sandbox path', async () => {
    const production = await v1('/v1/users', newUserBody(), PRODUCTION_KEY);
    const userId = production.body.id as string;
    expect((await read(`/sandbox/users/${userId}`).expect(404)).body.error.code).toBe('not_found');
    expect((await read('/sandbox/search', { q: userId }).expect(200)).body.users).toEqual([]);
    expect((await read(`/production/users/${userId}`).expect(200)).body.user.id).toBe(userId);
    expect((await read(`/staging/users/${userId}`).expect(404)).body.error.code).toBe('not_found');
  });

  it("compliance holds a card, support's unfreeze is refused 409, compliance lifts it, support unfreezes", async () => {
    const { cardId, userId } = await cardholder();
    const held = await act(compliance, `/sandbox/cards/${cardId}/holds`, {
      hold: 'compliance_hold',
      reason: 'CMP-118',
    }).expect(200);
    expect(held.body).toMatchObject({ status: 'frozen', blocks: ['compliance_hold'] });
    const refused = await act(support, `/sandbox/cards/${cardId}/unfreeze`, { reason: 'TICKET-1' }).expect(
      409,
    );
    expect(refused.body.error.code).toBe('card_unfreeze_blocked_error');
    await act(compliance, `/sandbox/cards/${cardId}/holds/compliance_hold/lift`, {
      reason: 'CMP-118 cleared',
    }).expect(200);
    const unfrozen = await act(support, `/sandbox/cards/${cardId}/unfreeze`, { reason: 'TICKET-1' }).expect(
      200,
    );
    expect(unfrozen.body).toMatchObject({ status: 'active', blocks: [] });

    // Every action in the audit trail, refused ones too, with its reason, newest first.
    expect(await auditOf({ targetId: cardId })).toEqual([
      expect.objectContaining({ action: 'card.unfreeze', outcome: 'succeeded', reason: 'TICKET-1', userId }),
      expect.objectContaining({ action: 'card.hold.lift', outcome: 'succeeded', reason: 'CMP-118 cleared' }),
      expect.objectContaining({
        action: 'card.unfreeze',
        outcome: 'refused',
        errorCode: 'card_unfreeze_blocked_error',
        staff: expect.objectContaining({ id: support.staffId, role: 'support' }),
      }),
      expect.objectContaining({ action: 'card.hold.place', outcome: 'succeeded', environment: 'sandbox' }),
    ]);

    // The user's timeline: their Events, and the staff actions after they are done.
    await waitFor(
      async () => named(await timeline(`/sandbox/users/${userId}/timeline`)).includes('card.unfrozen'),
      {
        what: 'card.unfrozen on the timeline',
      },
    );
    const names = named(await timeline(`/sandbox/users/${userId}/timeline`));
    expect(names).toEqual(
      expect.arrayContaining([
        'user.created',
        'card.created',
        'card.frozen',
        'card.unfrozen',
        'card.hold.place:succeeded',
        'card.unfreeze:refused',
      ]),
    );
    expect(names.indexOf('card.unfreeze:succeeded')).toBeLessThan(names.indexOf('card.hold.place:succeeded'));
    // Walked five at a time: newest first, each entry once.
    const entries = await timeline(`/sandbox/users/${userId}/timeline`);
    const times = entries.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    const ids = entries.map((e) => (e.kind === 'event' ? e.eventId : e.entry?.id));
    expect(new Set(ids).size).toBe(ids.length);
    const cardNames = named(await timeline(`/sandbox/cards/${cardId}/timeline`));
    expect(cardNames).toEqual(
      expect.arrayContaining(['card.created', 'card.frozen', 'card.hold.lift:succeeded']),
    );
    expect(cardNames).not.toContain('user.created');
  });

  it('support unblocks a card blocked by three wrong CVV2 entries', async () => {
    const { cardId } = await cardholder();
    // The cardholder types a wrong CVV2 at the sandbox's card network three times: the issuer declines each
    // (the card's CVV2 checked against the vault) and the third blocks the card.
    await issuerLinked(h);
    const { cvv2 } = await vaultSecretsOf(h, cardId);
    const wrong = cvv2 === '000' ? '001' : '000';
    for (let n = 0; n < 3; n++) {
      const declined = await v1('/v1/simulate/authorization', {
        cardId,
        amount: 1,
        currency: 'USD',
        merchant: { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' },
        cvv2: wrong,
      });
      expect(declined.status).toBe(200);
      // N7: CVV2 mismatch.
      expect(declined.body.network).toMatchObject({ requestMti: '0100', responseCode: 'N7' });
    }
    expect((await read(`/sandbox/cards/${cardId}`).expect(200)).body.card).toMatchObject({
      status: 'frozen',
      blocks: ['pin_cvv_attempts'],
    });
    const unblocked = await act(support, `/sandbox/cards/${cardId}/unblock`, {
      reason: 'Cardholder called, 4711',
    });
    expect(unblocked.status).toBe(200);
    expect(unblocked.body).toMatchObject({ status: 'active', blocks: [] });
    expect((await auditOf({ targetId: cardId }))[0]).toMatchObject({
      action: 'card.unblock',
      outcome: 'succeeded',
    });
  });

  it('compliance approves a KYC from the review queue, which activates the user', async () => {
    const user = await v1('/v1/users', newUserBody());
    const kyc = await h.http
      .put('/v1/kycs')
      .set({ 'x-api-key': SANDBOX_KEY, ...json })
      .send({ userId: user.body.id, type: 'full' });
    expect((await v1(`/v1/simulate/kyc/${kyc.body.id}/complete`)).status).toBe(200);
    const queue = await read('/sandbox/kyc-reviews', { limit: '100' }).expect(200);
    // Oldest first: this one, submitted last, is at the end.
    expect(queue.body.data.at(-1)).toMatchObject({ id: kyc.body.id, status: 'completed' });
    const submitted = queue.body.data.map((k: { createdAt: string }) => k.createdAt);
    expect([...submitted].sort()).toEqual(submitted);

    const reviewed = await act(compliance, `/sandbox/kycs/${kyc.body.id}/review`, {
      decision: 'approve',
      reason: 'KYC-REVIEW-9',
    }).expect(200);
    expect(reviewed.body.kyc).toMatchObject({ status: 'verified', userActivated: true });
    expect((await read(`/sandbox/users/${user.body.id}`).expect(200)).body.user.status).toBe('active');
    const after = await read('/sandbox/kyc-reviews', { limit: '100' }).expect(200);
    expect(after.body.data.map((k: { id: string }) => k.id)).not.toContain(kyc.body.id);
    expect((await auditOf({ userId: user.body.id }))[0]).toMatchObject({
      action: 'kyc.review',
      reason: 'KYC-REVIEW-9',
    });
  });

  it('compliance places and releases a wallet hold, raises an RFI; the user page follows', async () => {
    const holder = await cardholder();
    const held = await act(compliance, `/sandbox/wallets/${holder.walletId}/compliance-hold`, {
      reason: 'AML-3',
    }).expect(200);
    expect(held.body.complianceHold).toMatchObject({ reason: 'AML-3' });
    expect(
      (await read(`/sandbox/users/${holder.userId}`).expect(200)).body.wallet.complianceHold,
    ).toMatchObject({
      reason: 'AML-3',
    });
    await act(compliance, `/sandbox/wallets/${holder.walletId}/compliance-hold/release`, {
      reason: 'AML-3 closed',
    }).expect(200);
    expect((await read(`/sandbox/users/${holder.userId}`).expect(200)).body.wallet.complianceHold).toBeNull();

    const rfi = await act(compliance, `/sandbox/users/${holder.userId}/rfis`, {
      rfiSubtype: 'transaction_monitoring',
      reason: 'AML-4',
    }).expect(201);
    expect(rfi.body).toMatchObject({
      kyc: { type: 'rfi', userId: holder.userId },
      accessUrl: expect.any(String),
    });
    expect((await auditOf({ userId: holder.userId })).map((e) => e.action)).toEqual([
      'kyc.rfi',
      'wallet.complianceHold.release',
      'wallet.complianceHold.place',
    ]);
  });

  it('support freezes and unfreezes a user, compliance disables and revokes; roles, 400, 409, audit', async () => {
    const { userId } = await cardholder();
    const status = (staff: StaffSession, to: string, reason = `TICKET-${to}`) =>
      act(staff, `/sandbox/users/${userId}/status`, { status: to, reason });
    const statusOfUser = async () => (await read(`/sandbox/users/${userId}`).expect(200)).body.user.status;

    expect((await status(support, 'frozen').expect(200)).body).toMatchObject({
      id: userId,
      status: 'frozen',
    });
    expect(await statusOfUser()).toBe('frozen');
    // Support may not disable nor revoke (compliance's): 403, nothing changes (a viewer: the 403 test below).
    expect((await status(support, 'disabled').expect(403)).body.error.code).toBe('forbidden');
    expect((await status(support, 'revoked').expect(403)).body.error.code).toBe('forbidden');
    expect(await statusOfUser()).toBe('frozen');
    // A status staff may not set, or none: 400 naming status; no reason: 400 naming reason.
    const bad = await status(support, 'deleted').expect(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'status' }] });
    await status(support, 'onboarding').expect(400);
    const noReason = await act(support, `/sandbox/users/${userId}/status`, { status: 'active' }).expect(400);
    expect(noReason.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'reason' }] });

    await status(support, 'active').expect(200);
    await status(compliance, 'disabled').expect(200);
    // Out of disabled is compliance's too; a disabled user cannot be frozen: 409.
    expect((await status(support, 'active').expect(403)).body.error.code).toBe('forbidden');
    const frozenDisabled = await status(compliance, 'frozen').expect(409);
    expect(frozenDisabled.body.error.code).toBe('invalid_state_transition');
    await status(compliance, 'revoked').expect(200);
    const revived = await status(compliance, 'active').expect(409);
    expect(revived.body.error).toMatchObject({
      code: 'invalid_state_transition',
      message: expect.any(String),
    });
    expect(await statusOfUser()).toBe('revoked');
    await act(support, `/sandbox/users/usr-0f8fad5b-d9cb-469f-a165-70867728950e/status`, {
      status: 'frozen',
      reason: 'x',
    }).expect(404);

    // Every attempt in the audit trail, refused ones with their code, newest first.
    const trail = (await auditOf({ userId })).map((e) => `${e.action}:${e.outcome}:${e.errorCode ?? ''}`);
    expect(trail).toEqual([
      'user.status.active:refused:invalid_state_transition',
      'user.status.revoked:succeeded:',
      'user.status.frozen:refused:invalid_state_transition',
      'user.status.active:refused:forbidden',
      'user.status.disabled:succeeded:',
      'user.status.active:succeeded:',
      'user.status.revoked:refused:forbidden',
      'user.status.disabled:refused:forbidden',
      'user.status.frozen:succeeded:',
    ]);
    // The user's timeline: the lifecycle Events and the staff actions.
    await waitFor(
      async () => named(await timeline(`/sandbox/users/${userId}/timeline`)).includes('user.revoked'),
      { what: 'user.revoked on the timeline' },
    );
    expect(named(await timeline(`/sandbox/users/${userId}/timeline`))).toEqual(
      expect.arrayContaining([
        'user.frozen',
        'user.activated',
        'user.disabled',
        'user.revoked',
        'user.status.frozen:succeeded',
        'user.status.revoked:succeeded',
      ]),
    );
  });

  it('support redelivers an Event: a new delivery attempt of the subscription', async () => {
    const holder = await cardholder();
    let eventId = '';
    await waitFor(
      async () => {
        const deliveries = await read(`/sandbox/webhook-subscriptions/${subscriptionId}/deliveries`, {
          status: 'succeeded',
          limit: '100',
        }).expect(200);
        eventId =
          deliveries.body.data.find((d: { userId: string }) => d.userId === holder.userId)?.eventId ?? '';
        return eventId !== '';
      },
      { what: "a delivery of the user's Event" },
    );
    const subscriptions = await read('/sandbox/webhook-subscriptions').expect(200);
    expect(subscriptions.body.data.map((s: { id: string }) => s.id)).toContain(subscriptionId);

    const redelivered = await act(support, `/sandbox/events/${eventId}/redeliver`, {
      reason: 'DIST-77',
    }).expect(200);
    expect(redelivered.body.data).toEqual([expect.objectContaining({ eventId, redelivery: true })]);
    const deliveries = await read(`/sandbox/webhook-subscriptions/${subscriptionId}/deliveries`, {
      limit: '100',
    }).expect(200);
    expect(deliveries.body.data.filter((d: { eventId: string }) => d.eventId === eventId)).toHaveLength(2);
  });

  it('a viewer gets 403 on every action and a support member on compliance actions; nothing changes', async () => {
    const holder = await cardholder();
    const reason = { reason: 'TICKET-2' };
    const kycId = 'kyc-0f8fad5b-d9cb-469f-a165-70867728950e';
    const actions: [string, object, StaffSession[]][] = [
      [`/sandbox/cards/${holder.cardId}/freeze`, reason, [viewer]],
      [`/sandbox/cards/${holder.cardId}/unfreeze`, reason, [viewer]],
      [`/sandbox/cards/${holder.cardId}/unblock`, reason, [viewer]],
      ['/sandbox/events/0f8fad5b-d9cb-469f-a165-70867728950e/redeliver', reason, [viewer]],
      [`/sandbox/kycs/${kycId}/review`, { ...reason, decision: 'approve' }, [viewer, support]],
      [`/sandbox/users/${holder.userId}/rfis`, { ...reason, rfiSubtype: 'onboarding' }, [viewer, support]],
      [`/sandbox/wallets/${holder.walletId}/compliance-hold`, reason, [viewer, support]],
      [`/sandbox/wallets/${holder.walletId}/compliance-hold/release`, reason, [viewer, support]],
      [`/sandbox/cards/${holder.cardId}/holds`, { ...reason, hold: 'fraud_hold' }, [viewer, support]],
      [`/sandbox/cards/${holder.cardId}/holds/fraud_hold/lift`, reason, [viewer, support]],
      [`/sandbox/users/${holder.userId}/status`, { ...reason, status: 'frozen' }, [viewer]],
    ];
    for (const [path, body, staff] of actions)
      for (const member of staff) {
        const refused = await act(member, path, body);
        expect({ path, status: refused.status, code: refused.body.error?.code }).toEqual({
          path,
          status: 403,
          code: 'forbidden',
        });
      }
    const page = await read(`/sandbox/users/${holder.userId}`).expect(200);
    expect(page.body.cards).toEqual([expect.objectContaining({ status: 'active', blocks: [] })]);
    expect(page.body.wallet.complianceHold).toBeNull();
    expect(page.body.kycs).toHaveLength(1);
    expect(page.body.user.status).toBe('active');
    // Refused by role, and recorded as refused.
    const viewerRefusals = await auditOf({ staffId: viewer.staffId });
    expect(viewerRefusals.filter((e) => e.outcome === 'refused' && e.errorCode === 'forbidden')).toHaveLength(
      11,
    );
  });

  it('refuses an action without a reason, naming reason, and bad list queries with 400', async () => {
    const { cardId } = await cardholder();
    const refused = await act(support, `/sandbox/cards/${cardId}/freeze`, {}).expect(400);
    expect(refused.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'reason' }] });
    await act(support, `/sandbox/cards/${cardId}/freeze`, { reason: 'x'.repeat(501) }).expect(400);
    expect((await read(`/sandbox/cards/${cardId}`).expect(200)).body.card.status).toBe('active');
    await act(compliance, `/sandbox/cards/${cardId}/holds/travel_hold/lift`, { reason: 'x' }).expect(404);

    await read('/sandbox/transactions', { limit: '0' }).expect(400);
    await read('/sandbox/transactions', { from: 'yesterday' }).expect(400);
    await read('/sandbox/transactions', { kind: 'gift' }).expect(400);
    expect(
      (await read('/sandbox/transactions', { cursor: 'bm9wZQ' }).expect(400)).body.error.details,
    ).toEqual([expect.objectContaining({ field: 'cursor' })]);
    await read('/sandbox/cards').expect(400);
    await read('/sandbox/search').expect(400);
    await read('/sandbox/transactions', { distributorId: 'dst-0f8fad5b-d9cb-469f-a165-70867728950e' }).expect(
      404,
    );
  });
});
