import { ConsumerHost } from '@cip/shared/infrastructure';
import { ManualClock } from '@cip/shared/runtime';
import { DeliveryEngine } from '@cip/webhooks/service';
import { Harness, newUserBody, startHarness } from './testing/platform-harness';
import { WebhookReceiver } from '@cip/shared/testing';

const json = { 'content-type': 'application/json' };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function settle(h: Harness): Promise<void> {
  await h.platform.app.get(ConsumerHost).drain('sandbox');
  await h.platform.app.get(DeliveryEngine).idle();
}

/** Moves the injected clock and lets the retries that came due go (no real waiting for back-off). */
async function advance(h: Harness, clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  h.platform.app.get(DeliveryEngine).runDue();
  await settle(h);
}

/** A platform on the injected clock, one distributor with a verified subscription to `receiver`. */
async function subscribed(
  receiver: WebhookReceiver,
  clock: ManualClock,
  options: { dataDir?: string; breakerResetMs?: number } = {},
) {
  const h = await startHarness({
    clock,
    allowPrivateWebhookUrls: true,
    dataDir: options.dataDir,
    webhookBreakerResetTimeoutMs: options.breakerResetMs ?? 60_000,
  });
  const { sandboxKey } = await h.newDistributor();
  const api = { 'x-api-key': sandboxKey };
  const subscription = (
    await h.http
      .post('/v1/webhook-subscriptions')
      .set({ ...api, ...json })
      .send({ url: receiver.url })
  ).body;
  await settle(h);
  const createUser = async () =>
    (
      await h.http
        .post('/v1/users')
        .set({ ...api, ...json })
        .send(newUserBody())
    ).body;
  const deliveries = async (query: Record<string, string> = {}) =>
    (
      await h.http
        .get(`/v1/webhook-subscriptions/${subscription.id}/deliveries`)
        .query({ limit: 100, ...query })
        .set(api)
    ).body;
  return { h, api, subscription, createUser, deliveries };
}

describe('webhook retries on the injected clock', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  it('a receiver down for a while gets every Event once it is up, each acknowledged once, in order per user', async () => {
    const clock = new ManualClock();
    const { h, api, createUser, deliveries } = await subscribed(receiver, clock);
    try {
      receiver.answer = () => ({ status: 503 });
      const ada = await createUser();
      await h.http
        .put(`/v1/users/${ada.id}/phone`)
        .set({ ...api, ...json })
        .send({ country: '+33', number: '612345678' });
      const grace = await createUser();
      await settle(h);
      await advance(h, clock, MINUTE);
      // Ada's second Event waits behind her first; each user's first Event was tried twice.
      expect(
        receiver.deliveries.filter((r) => r.body.userId === ada.id).map((r) => r.body.eventName),
      ).toEqual(['user.created', 'user.created']);

      receiver.answer = () => ({ status: 200 });
      await advance(h, clock, 10 * MINUTE);
      const acknowledged = receiver.acknowledged();
      const ids = acknowledged.map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size).toBe(ids.length);
      expect(acknowledged.filter((r) => r.body.userId === ada.id).map((r) => r.body.eventName)).toEqual([
        'user.created',
        'user.phoneNumberSet',
      ]);
      expect(acknowledged.filter((r) => r.body.userId === grace.id).map((r) => r.body.eventName)).toEqual([
        'user.created',
      ]);

      const log = await deliveries({ eventId: receiver.acknowledged('user.created')[0].body.eventId! });
      expect(log.items[0].status).toBe('succeeded');
      expect(log.items[0].attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 200]);
      expect((await deliveries({ status: 'pending' })).count).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('honours Retry-After on 429 instead of the shorter back-off', async () => {
    const clock = new ManualClock();
    const { h, createUser, deliveries } = await subscribed(receiver, clock);
    try {
      receiver.answer = () => ({ status: 429, headers: { 'retry-after': '3600' } });
      await createUser();
      await settle(h);
      const [pending] = (await deliveries({ status: 'pending' })).items;
      expect(Date.parse(pending.nextAttemptAt) - clock.now().getTime()).toBe(HOUR);
      await advance(h, clock, 30 * MINUTE);
      expect(receiver.deliveries.filter((r) => r.body.eventName === 'user.created')).toHaveLength(1);
      receiver.answer = () => ({ status: 200 });
      await advance(h, clock, 31 * MINUTE);
      expect(receiver.acknowledged('user.created')).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('disables a subscription that keeps failing for 3 days and cancels what it still owed', async () => {
    const clock = new ManualClock();
    const { h, api, subscription, createUser, deliveries } = await subscribed(receiver, clock);
    try {
      receiver.answer = () => ({ status: 500 });
      await createUser();
      await settle(h);
      const started = clock.now().getTime();
      const status = async () =>
        (await h.http.get(`/v1/webhook-subscriptions/${subscription.id}`).set(api)).body;
      for (let elapsed = 0; elapsed < 3 * 24 * HOUR; elapsed += 6 * HOUR) {
        expect(await status()).toMatchObject({
          status: 'active',
          failingSince: new Date(started).toISOString(),
        });
        await advance(h, clock, 6 * HOUR);
        await createUser();
        await settle(h);
      }
      expect(await status()).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
      const disabled = await h.http
        .get('/v1/events')
        .query({ eventName: 'webhookSubscription.disabled' })
        .set(api);
      expect(disabled.body.items).toEqual([expect.objectContaining({ eventTargetId: subscription.id })]);
      expect((await deliveries({ status: 'pending' })).count).toBe(0);
      expect((await deliveries({ status: 'cancelled' })).count).toBeGreaterThan(0);
      expect(receiver.acknowledged('user.created')).toHaveLength(0);
    } finally {
      await h.close();
    }
  });

  it('costs a dead endpoint nothing while its circuit is open: due retries are held, not sent or counted', async () => {
    const clock = new ManualClock();
    const { h, createUser, deliveries } = await subscribed(receiver, clock);
    try {
      receiver.answer = () => ({ status: 500 });
      for (let i = 0; i < 30; i++) await createUser();
      await settle(h);
      const hits = receiver.deliveries.length;
      expect(hits).toBeGreaterThanOrEqual(10);
      await advance(h, clock, 10 * MINUTE);
      await advance(h, clock, HOUR);
      expect(receiver.deliveries.length).toBe(hits);
      const pending = (await deliveries({ status: 'pending' })).items as { attempts: unknown[] }[];
      expect(pending).toHaveLength(30);
      expect(pending.every((d) => d.attempts.length <= 1)).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('a pending retry survives a restart and is delivered once after it', async () => {
    const clock = new ManualClock();
    const first = await subscribed(receiver, clock);
    receiver.answer = () => ({ status: 503 });
    await first.createUser();
    await settle(first.h);
    expect(receiver.deliveries.filter((r) => r.body.eventName === 'user.created')).toHaveLength(1);
    await first.h.close({ keepData: true });

    receiver.answer = () => ({ status: 200 });
    const h = await startHarness({ clock, allowPrivateWebhookUrls: true, dataDir: first.h.dataDir });
    try {
      await settle(h);
      expect(receiver.acknowledged('user.created')).toHaveLength(0);
      await advance(h, clock, MINUTE);
      expect(receiver.acknowledged('user.created')).toHaveLength(1);
      await advance(h, clock, HOUR);
      expect(receiver.acknowledged('user.created')).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});

describe('webhook urls: SSRF refusals (private urls not allowed)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it.each([
    'http://127.0.0.1:8080/hooks',
    'http://localhost/hooks',
    'http://169.254.169.254/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://[::1]/hooks',
    'http://[::ffff:127.0.0.1]/hooks',
    'http://10.0.0.7/hooks',
    'http://192.168.1.10/hooks',
    'http://100.64.0.1/hooks',
    'http://0x7f000001/hooks',
    'ftp://example.com/hooks',
    'https://user:password@example.com/hooks',
    'not a url',
  ])('refuses %s with 400 validation_error and creates nothing', async (url) => {
    const { sandboxKey } = await h.newDistributor();
    const response = await h.http
      .post('/v1/webhook-subscriptions')
      .set({ 'x-api-key': sandboxKey, ...json })
      .send({ url });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.details).toEqual([expect.objectContaining({ field: 'url' })]);
    const listed = await h.http.get('/v1/webhook-subscriptions').set({ 'x-api-key': sandboxKey });
    expect(listed.body.count).toBe(0);
  });
});
