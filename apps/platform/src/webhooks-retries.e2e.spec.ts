import { ConsumerHost } from '@cip/shared/infrastructure';
import { ManualClock } from '@cip/shared/runtime';
import { WebhookReceiver } from '@cip/shared/testing';
import { Harness, newUserBody, startHarness } from './testing/platform-harness';
import { DispatcherSentinel } from './testing/webhook-settle';

const json = { 'content-type': 'application/json' };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A platform on the test's clock, and (split) the sentinel `settle` waits on. */
interface OnClock {
  h: Harness;
  clock: ManualClock;
  sentinel: DispatcherSentinel;
}

/**
 * A platform on `clock`. Its open circuits stay open longer than any test runs (the breaker's reset is real
 * time): a test sees what the engine does with due retries while one is open, never a probe in between.
 */
async function onClock(clock: ManualClock, dataDir?: string): Promise<OnClock> {
  const h = await startHarness({
    clock,
    allowPrivateWebhookUrls: true,
    dataDir,
    webhookBreakerResetTimeoutMs: 10 * MINUTE,
  });
  return { h, clock, sentinel: new DispatcherSentinel() };
}

/**
 * Waits until the dispatcher has read every Event appended so far and every delivery it let go has been
 * answered (or held on an open circuit) and logged. One process: its consumer host and delivery engine say
 * so. Split: the sentinel's Event appended now was delivered (the dispatcher reads the log in order: the
 * deliveries of every earlier Event are with the engine), then the clock moves by 1 ms and the webhooks
 * service reports a look at that time done (`h.sweepDue('webhooks')`: everything the engine had was answered
 * by then). The 1 ms lets nothing else come due: no retry is that short.
 */
async function settle(p: OnClock): Promise<void> {
  const { h, clock } = p;
  if (h.topology === 'one-process') {
    await h.platform.app.get(ConsumerHost).drain('sandbox');
    await h.sweepDue('webhooks');
    return;
  }
  await p.sentinel.reach(h);
  clock.advance(1);
  await h.sweepDue('webhooks');
}

/** Moves the test's clock and lets the retries that came due go (no real waiting for back-off). */
async function advance(p: OnClock, ms: number): Promise<void> {
  p.clock.advance(ms);
  await p.h.sweepDue('webhooks');
  await settle(p);
}

async function close(p: OnClock, options?: { keepData?: boolean }): Promise<void> {
  await p.sentinel.stop();
  await p.h.close(options);
}

/** A new distributor with a verified subscription to `receiver`. */
async function subscribed(p: OnClock, receiver: WebhookReceiver) {
  const { h } = p;
  const { sandboxKey } = await h.newDistributor();
  const api = { 'x-api-key': sandboxKey };
  const subscription = (
    await h.http
      .post('/v1/webhook-subscriptions')
      .set({ ...api, ...json })
      .send({ url: receiver.url })
  ).body;
  await settle(p);
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

// One platform on one test clock for these tests (each has a distributor, a subscription and a receiver of
// its own): on the split topology each platform is a dozen processes to start.
describe('webhook retries on the test clock', () => {
  let p: OnClock;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    p = await onClock(new ManualClock());
  });
  afterAll(async () => {
    await close(p);
  });
  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  it('a receiver down for a while gets every Event once it is up, each acknowledged once, in order per user', async () => {
    const { api, createUser, deliveries, h } = await subscribed(p, receiver);
    receiver.answer = () => ({ status: 503 });
    const ada = await createUser();
    await h.http
      .put(`/v1/users/${ada.id}/phone`)
      .set({ ...api, ...json })
      .send({ country: '+33', number: '612345678' });
    const grace = await createUser();
    await settle(p);
    await advance(p, MINUTE);
    // Ada's second Event waits behind her first; each user's first Event was tried twice.
    expect(receiver.deliveries.filter((r) => r.body.userId === ada.id).map((r) => r.body.eventName)).toEqual([
      'user.created',
      'user.created',
    ]);

    receiver.answer = () => ({ status: 200 });
    await advance(p, 10 * MINUTE);
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
  });

  it('honours Retry-After on 429 instead of the shorter back-off', async () => {
    const { createUser, deliveries } = await subscribed(p, receiver);
    receiver.answer = () => ({ status: 429, headers: { 'retry-after': '3600' } });
    await createUser();
    await settle(p);
    const [pending] = (await deliveries({ status: 'pending' })).items;
    // An hour after the 429 (the attempt's time on the test clock), not the first back-off's minute.
    expect(Date.parse(pending.nextAttemptAt) - Date.parse(pending.attempts[0].at)).toBe(HOUR);
    await advance(p, 30 * MINUTE);
    expect(receiver.deliveries.filter((r) => r.body.eventName === 'user.created')).toHaveLength(1);
    receiver.answer = () => ({ status: 200 });
    await advance(p, 31 * MINUTE);
    expect(receiver.acknowledged('user.created')).toHaveLength(1);
  });

  it('disables a subscription that keeps failing for 3 days and cancels what it still owed', async () => {
    const { h, api, subscription, createUser, deliveries } = await subscribed(p, receiver);
    receiver.answer = () => ({ status: 500 });
    await createUser();
    await settle(p);
    // The first failure's time on the test clock: the grace period runs from it.
    const started = Date.parse((await deliveries()).items[0].attempts[0].at);
    const status = async () =>
      (await h.http.get(`/v1/webhook-subscriptions/${subscription.id}`).set(api)).body;
    for (let elapsed = 0; elapsed < 3 * 24 * HOUR; elapsed += 6 * HOUR) {
      expect(await status()).toMatchObject({
        status: 'active',
        failingSince: new Date(started).toISOString(),
      });
      await advance(p, 6 * HOUR);
      await createUser();
      await settle(p);
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
  });

  it('costs a dead endpoint nothing while its circuit is open: due retries are held, not sent or counted', async () => {
    const { createUser, deliveries } = await subscribed(p, receiver);
    receiver.answer = () => ({ status: 500 });
    for (let i = 0; i < 30; i++) await createUser();
    await settle(p);
    const hits = receiver.deliveries.length;
    expect(hits).toBeGreaterThanOrEqual(10);
    await advance(p, 10 * MINUTE);
    await advance(p, HOUR);
    expect(receiver.deliveries.length).toBe(hits);
    const pending = (await deliveries({ status: 'pending' })).items as { attempts: unknown[] }[];
    expect(pending).toHaveLength(30);
    expect(pending.every((d) => d.attempts.length <= 1)).toBe(true);
  });
});

describe('webhook retries across a restart', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  it('a pending retry survives a restart and is delivered once after it', async () => {
    const clock = new ManualClock();
    const first = await onClock(clock);
    const { createUser } = await subscribed(first, receiver);
    receiver.answer = () => ({ status: 503 });
    await createUser();
    await settle(first);
    expect(receiver.deliveries.filter((r) => r.body.eventName === 'user.created')).toHaveLength(1);
    await close(first, { keepData: true });

    receiver.answer = () => ({ status: 200 });
    const p = await onClock(clock, first.h.dataDir);
    try {
      await settle(p);
      expect(receiver.acknowledged('user.created')).toHaveLength(0);
      await advance(p, MINUTE);
      expect(receiver.acknowledged('user.created')).toHaveLength(1);
      await advance(p, HOUR);
      expect(receiver.acknowledged('user.created')).toHaveLength(1);
    } finally {
      await close(p);
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
    // Issue 38: IPv6 forms that carry a private IPv4 address.
    'http://[::ffff:0:127.0.0.1]:8080/hooks',
    'http://[::ffff:0:a9fe:a9fe]/latest/meta-data/',
    'http://[::127.0.0.1]/hooks',
    'http://[64:ff9b::10.0.0.7]/hooks',
    'http://[64:ff9b:1::a00:7]/hooks',
    'http://[2002:7f00:1::1]/hooks',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks',
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

  it("refuses the IPv4-translated spelling of a local receiver's url (issue 38), which never hears of it", async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const port = new URL(receiver.url).port;
      const { sandboxKey } = await h.newDistributor();
      const response = await h.http
        .post('/v1/webhook-subscriptions')
        .set({ 'x-api-key': sandboxKey, ...json })
        .send({ url: `http://[::ffff:0:127.0.0.1]:${port}/` });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'validation_error',
        details: [expect.objectContaining({ field: 'url', message: expect.stringContaining('private') })],
      });
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await receiver.stop();
    }
  });
});
