import { AUTHORIZATIONS_API } from '@cip/authorizations/contract';
import type { AuditEntry, AuditFilter, AuditLog } from '@cip/backoffice/contract';
import { OperatorActions, OperatorQueries, Tenants } from '@cip/backoffice/service';
import {
  CARD_VERIFICATION_API,
  CARDS_API,
  CARD_OPERATIONS_API,
  type CardVerificationApi,
} from '@cip/cards/contract';
import { CONTROL_PLANE_API, type ControlPlaneApi } from '@cip/distributors/contract';
import { EVENTS_API } from '@cip/events/contract';
import { KYC_API, KYC_OPERATOR_API } from '@cip/kyc/contract';
import { DomainError } from '@cip/shared/contracts';
import { waitFor } from '@cip/shared/testing';
import { USER_LIFECYCLE_API, USERS_API } from '@cip/users/contract';
import { WALLET_COMPLIANCE_API, WALLETS_API } from '@cip/wallets/contract';
import { WEBHOOKS_API } from '@cip/webhooks/contract';
import { activeUserWithWallet } from './testing/cardholders';
import { Harness, newUserBody, PRODUCTION_KEY, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { WebhookReceiver } from './testing/webhook-receiver';

// Issue 14: the environment pages' services over the running embedded platform, resolved from it through
// the contexts' contract tokens as the operator app injects them (the HTTP side is the e2e's).

/** An audit log as the backoffice keeps it, in memory: newest first, cursor = index. */
class MemoryAuditLog implements AuditLog {
  readonly entries: AuditEntry[] = [];
  add(entry: Omit<AuditEntry, 'id' | 'staff' | 'outcome' | 'errorCode'>) {
    this.entries.unshift({
      ...entry,
      id: `aud-${this.entries.length}`,
      staff: { id: 'stf-1', email: 'ada@example.com', role: 'compliance' },
      outcome: 'succeeded',
      errorCode: null,
    });
  }
  async list(filter: AuditFilter, page: { limit: number; cursor?: string }) {
    const matching = this.entries.filter(
      (entry) =>
        (!filter.userId || entry.userId === filter.userId) &&
        (!filter.targetId || entry.target.id === filter.targetId),
    );
    const start = Number(page.cursor ?? 0);
    const data = matching.slice(start, start + page.limit);
    return { data, nextCursor: start + page.limit < matching.length ? String(start + page.limit) : null };
  }
}

/** The value `read` gives once it gives one (waitFor's bound). */
async function eventually<T>(read: () => Promise<T | null>, bound: { what: string }): Promise<T> {
  let value: T | null = null;
  await waitFor(async () => (value = await read()) !== null, bound);
  return value as T;
}

describe('backoffice environment pages: OperatorQueries and OperatorActions', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  let queries: OperatorQueries;
  let actions: OperatorActions;
  const audit = new MemoryAuditLog();
  const json = { 'content-type': 'application/json' };
  const post = (path: string, body: object = {}, key = SANDBOX_KEY) =>
    h.http
      .post(path)
      .set({ 'x-api-key': key, ...json })
      .send(body);
  const STAFF = { operator: 'ada@example.com', reason: 'Case CMP-118' };

  beforeAll(async () => {
    h = await startHarness({ allowPrivateWebhookUrls: true });
    receiver = await new WebhookReceiver().start();
    const app = h.platform.app;
    const tenants = new Tenants(app.get<ControlPlaneApi>(CONTROL_PLANE_API, { strict: false }));
    const get = <T>(token: symbol) => app.get<T>(token, { strict: false });
    queries = new OperatorQueries(
      tenants,
      get(USERS_API),
      get(USER_LIFECYCLE_API),
      get(KYC_API),
      get(CARDS_API),
      get(WALLETS_API),
      get(AUTHORIZATIONS_API),
      get(EVENTS_API),
      get(WEBHOOKS_API),
      audit,
    );
    actions = new OperatorActions(
      tenants,
      get(CARDS_API),
      get(CARD_OPERATIONS_API),
      get(KYC_API),
      get(KYC_OPERATOR_API),
      get(USER_LIFECYCLE_API),
      get(WALLETS_API),
      get(WALLET_COMPLIANCE_API),
      get(EVENTS_API),
      get(WEBHOOKS_API),
    );
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
  });

  async function cardholder() {
    const phone = { country: '+33', number: String(600000000 + Math.floor(Math.random() * 99999999)) };
    const holder = await activeUserWithWallet(h, { phone });
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    return {
      ...holder,
      phone: `${phone.country}${phone.number}`,
      card: card.body as { id: string; last4: string },
    };
  }

  it('finds a user by id, email and phone, and a card by id and last four digits', async () => {
    const holder = await cardholder();
    for (const q of [holder.userId, holder.email, holder.phone])
      expect((await queries.search('sandbox', q)).users.map((user) => user.id)).toEqual([holder.userId]);
    expect((await queries.search('sandbox', holder.card.id)).cards.map((card) => card.id)).toEqual([
      holder.card.id,
    ]);
    const byLast4 = await queries.cardsByLast4('sandbox', holder.card.last4, holder.userId);
    expect(byLast4.data.map((card) => card.id)).toEqual([holder.card.id]);
    expect(JSON.stringify(byLast4)).not.toMatch(/"pan"|cvv/i);
    expect(await queries.search('sandbox', '+99999999999')).toEqual({
      users: [],
      cards: [],
      transactions: [],
    });
  });

  it('shows a user with their distributor, KYCs, wallet and cards', async () => {
    const holder = await cardholder();
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: 25.5 })).status).toBe(
      201,
    );
    const detail = await eventually(
      async () => {
        const found = await queries.userDetail('sandbox', holder.userId);
        return found.wallet?.balance === 25.5 && found.transactions.length > 0 ? found : null;
      },
      { what: 'the deposit on the user page' },
    );
    expect(detail).toMatchObject({
      user: { id: holder.userId, status: 'active' },
      distributor: { id: expect.stringMatching(/^dst-/), name: expect.any(String) },
      kycs: [expect.objectContaining({ status: 'verified', type: 'full' })],
      wallet: { id: holder.walletId, balance: 25.5, held: 0, available: 25.5, complianceHold: null },
      holds: [],
      cards: [expect.objectContaining({ id: holder.card.id, maskedPan: expect.stringMatching(/\*{6}/) })],
      transactions: [expect.objectContaining({ type: 'deposit', amount: 25.5 })],
    });
    const deposits = await queries.transactions(
      'sandbox',
      { userId: holder.userId, kind: 'deposit' },
      { limit: 5 },
    );
    expect(deposits.data).toEqual([
      expect.objectContaining({ kind: 'deposit', id: expect.stringMatching(/^txn-/) }),
    ]);
    expect(await queries.transaction('sandbox', deposits.data[0].id)).toMatchObject({ kind: 'deposit' });
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(
      (await queries.transactions('sandbox', { userId: holder.userId, from: later }, { limit: 5 })).data,
    ).toEqual([]);
  });

  it('never shows production data on a sandbox page', async () => {
    const created = await post('/v1/users', newUserBody(), PRODUCTION_KEY);
    expect(created.status).toBe(201);
    const userId = created.body.id as string;
    await expect(queries.userDetail('sandbox', userId)).rejects.toMatchObject({ code: 'not_found' });
    expect((await queries.search('sandbox', userId)).users).toEqual([]);
    expect((await queries.search('sandbox', created.body.email)).users).toEqual([]);
    expect((await queries.userDetail('production', userId)).user.id).toBe(userId);
  });

  it("a compliance hold refuses the card's unfreeze until it is lifted", async () => {
    const { card } = await cardholder();
    expect(await actions.placeCardHold('sandbox', card.id, 'compliance_hold', STAFF)).toMatchObject({
      status: 'frozen',
      blocks: ['compliance_hold'],
    });
    const refused = actions.unfreezeCard('sandbox', card.id);
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({ code: 'card_unfreeze_blocked_error' });
    await actions.liftCardHold('sandbox', card.id, 'compliance_hold', STAFF);
    expect(await actions.unfreezeCard('sandbox', card.id)).toMatchObject({ status: 'active', blocks: [] });
    expect(await actions.freezeCard('sandbox', card.id)).toMatchObject({ status: 'frozen' });
  });

  it('unblocks a card blocked by three wrong CVV2 entries', async () => {
    const { card } = await cardholder();
    const verification = h.platform.app.get<CardVerificationApi>(CARD_VERIFICATION_API, { strict: false });
    for (const attempt of [1, 2, 3])
      await verification.recordVerification('sandbox', card.id, {
        authorizationId: `aut-${attempt}`,
        method: 'cvv2',
        ok: false,
      });
    expect((await queries.cardDetail('sandbox', card.id)).card).toMatchObject({
      blocks: ['pin_cvv_attempts'],
    });
    expect(await actions.unblockCard('sandbox', card.id, STAFF)).toMatchObject({
      status: 'active',
      blocks: [],
    });
  });

  it('places and releases a compliance hold on a wallet', async () => {
    const holder = await cardholder();
    expect(
      await actions.setWalletComplianceHold('sandbox', holder.walletId, true, 'RFI pending'),
    ).toMatchObject({
      complianceHold: { reason: 'RFI pending' },
    });
    expect(
      await actions.setWalletComplianceHold('sandbox', holder.walletId, false, 'RFI answered'),
    ).toMatchObject({
      complianceHold: null,
    });
    expect(await actions.userOfWallet('sandbox', holder.walletId)).toBe(holder.userId);
  });

  it('approves a KYC from the review queue, which activates the user', async () => {
    const user = await post('/v1/users', newUserBody());
    const kyc = await h.http
      .put('/v1/kycs')
      .set({ 'x-api-key': SANDBOX_KEY, ...json })
      .send({ userId: user.body.id, type: 'full' });
    const kycId = (kyc.body.id ?? kyc.body.kyc?.id) as string;
    expect((await post(`/v1/simulate/kyc/${kycId}/complete`)).status).toBe(200);
    const queued = await eventually(
      async () => {
        const ids: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await queries.kycReviewQueue('sandbox', { limit: 2, cursor });
          ids.push(...page.data.map((k) => k.id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        return ids.includes(kycId) ? ids : null;
      },
      { what: 'the submitted KYC in the queue' },
    );
    expect(queued.at(-1)).toBe(kycId);
    const reviewed = await actions.reviewKyc('sandbox', kycId, 'approve');
    expect(reviewed.kyc).toMatchObject({ status: 'verified', userActivated: true });
    expect((await queries.userDetail('sandbox', user.body.id)).user.status).toBe('active');
    expect((await queries.kycReviewQueue('sandbox', { limit: 100 })).data.map((k) => k.id)).not.toContain(
      kycId,
    );
  });

  it('raises an RFI on a user', async () => {
    const holder = await cardholder();
    const raised = await actions.raiseRfi('sandbox', holder.userId, 'transaction_monitoring');
    expect(raised.kyc).toMatchObject({
      type: 'rfi',
      rfiSubtype: 'transaction_monitoring',
      userId: holder.userId,
    });
    expect(raised.accessUrl).toEqual(expect.any(String));
  });

  it("merges the user's Events with the staff actions on them in the timeline, newest first", async () => {
    const holder = await cardholder();
    await actions.placeCardHold('sandbox', holder.card.id, 'fraud_hold', STAFF);
    audit.add({
      at: new Date().toISOString(),
      action: 'card.hold.place',
      environment: 'sandbox',
      target: { type: 'card', id: holder.card.id },
      userId: holder.userId,
      reason: 'Case CMP-118',
    });
    const timeline = await eventually(
      async () => {
        const entries = [];
        let cursor: string | undefined;
        do {
          const page = await queries.userTimeline('sandbox', holder.userId, { limit: 3, cursor });
          entries.push(...page.data);
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        return entries.some((e) => e.kind === 'event' && e.eventName === 'card.frozen') ? entries : null;
      },
      { what: 'card.frozen on the timeline' },
    );
    const names = timeline.map((e) => (e.kind === 'event' ? e.eventName : `audit:${e.entry.action}`));
    expect(names).toEqual(
      expect.arrayContaining(['user.created', 'card.created', 'card.frozen', 'audit:card.hold.place']),
    );
    expect(new Set(timeline.map((e) => (e.kind === 'event' ? e.eventId : e.entry.id))).size).toBe(
      timeline.length,
    );
    const times = timeline.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);

    const cardTimeline = await queries.cardTimeline('sandbox', holder.card.id, { limit: 100 });
    const cardNames = cardTimeline.data.map((e) =>
      e.kind === 'event' ? e.eventName : `audit:${e.entry.action}`,
    );
    expect(cardNames).toEqual(
      expect.arrayContaining(['card.created', 'card.frozen', 'audit:card.hold.place']),
    );
    expect(cardNames).not.toContain('user.created');
  });

  it('lists webhook subscriptions and redelivers an Event as a new delivery', async () => {
    const subscription = await post('/v1/webhook-subscriptions', { url: receiver.url });
    expect(subscription.status).toBe(201);
    const subscriptionId = (subscription.body.id ?? subscription.body.subscription?.id) as string;
    const listed = await queries.webhookSubscriptions('sandbox', undefined, { limit: 100 });
    expect(listed.data.map((s) => s.id)).toContain(subscriptionId);
    expect(JSON.stringify(listed)).not.toMatch(/secret/i);

    const holder = await cardholder();
    const delivered = await eventually(
      async () =>
        (await queries.webhookDeliveries('sandbox', subscriptionId, 'succeeded', { limit: 100 })).data.find(
          (d) => d.userId === holder.userId,
        ) ?? null,
      { what: "a delivery of the user's Event" },
    );
    const redelivered = await actions.redeliver('sandbox', delivered.eventId);
    expect(redelivered).toEqual([expect.objectContaining({ eventId: delivered.eventId, redelivery: true })]);
    const deliveries = await queries.webhookDeliveries('sandbox', subscriptionId, undefined, { limit: 100 });
    expect(deliveries.data.filter((d) => d.eventId === delivered.eventId)).toHaveLength(2);
  });
});
