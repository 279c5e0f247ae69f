import { createServer, type AddressInfo } from 'node:net';
import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { rotateSigningKey } from '@cip/webhooks/service';
import { createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Harness, newUserBody, startHarness } from './testing/platform-harness';
import { webhookSettler } from './testing/webhook-settle';
import { itOnEmbeddedStores } from './testing/topology';

const json = { 'content-type': 'application/json' };

/** An Ed25519 public key object from the raw 32 bytes the public-key endpoint returns. */
const ed25519Key = (raw: string) =>
  createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw, 'base64').toString('base64url') },
    format: 'jwk',
  });

describe('webhooks over /v1 with a local receiver', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  let key: string;

  const settler = webhookSettler(() => h);

  beforeAll(async () => {
    h = await startHarness({ allowPrivateWebhookUrls: true });
  });
  afterAll(async () => {
    await settler.stop();
    await h.close();
  });
  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
    key = (await h.newDistributor()).sandboxKey;
  });
  afterEach(async () => {
    await receiver.stop();
  });

  const api = () => ({ 'x-api-key': key });
  const settled = () => settler.settle(key);
  const subscribe = (url = receiver.url) =>
    h.http
      .post('/v1/webhook-subscriptions')
      .set({ ...api(), ...json })
      .send({ url });
  const createUser = () =>
    h.http
      .post('/v1/users')
      .set({ ...api(), ...json })
      .send(newUserBody());

  it('verifies a subscription with the challenge handshake and records its lifecycle Events without userId', async () => {
    const created = await subscribe();
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: receiver.url,
      status: 'active',
      lastVerification: { verified: true },
    });
    expect(created.body.id).toMatch(/^whs-[0-9a-f-]{36}$/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(created.headers.location).toBe(`/v1/webhook-subscriptions/${created.body.id}`);

    const [handshake] = receiver.requests;
    expect(handshake.body).toEqual({
      type: 'webhookSubscription.verification',
      challenge: expect.any(String),
    });

    const read = await h.http.get(`/v1/webhook-subscriptions/${created.body.id}`).set(api());
    const { secret: _secret, ...withoutSecret } = created.body;
    expect(read.body).toEqual(withoutSecret);
    expect(JSON.stringify(read.body)).not.toContain('whsec_');
    const listed = await h.http.get('/v1/webhook-subscriptions').set(api());
    expect(listed.body).toMatchObject({ count: 1, items: [withoutSecret] });

    const events = await h.http.get('/v1/events').query({ sortBy: 'createdAt' }).set(api());
    const names = events.body.items.map((e: { eventName: string }) => e.eventName);
    expect(names).toEqual(['webhookSubscription.created', 'webhookSubscription.verified']);
    for (const event of events.body.items) {
      expect(event).not.toHaveProperty('userId');
      expect(event.eventTargetId).toBe(created.body.id);
      expect(JSON.stringify(event)).not.toContain('whsec_');
    }
  });

  it('says only that it could not connect when the url cannot be reached, without transport details', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const created = await subscribe(`http://127.0.0.1:${closed}/hooks`);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'unverified',
      lastVerification: { verified: false, reason: 'could not connect to the url' },
    });
    expect(JSON.stringify(created.body.lastVerification)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });

  it('keeps a subscription whose url does not echo the challenge unverified, and sends it nothing', async () => {
    receiver.echoChallenge = false;
    const created = await subscribe();
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'unverified',
      lastVerification: { verified: false, reason: 'the response did not echo the challenge' },
    });
    expect((await createUser()).status).toBe(201);
    await settled();
    expect(receiver.deliveries).toHaveLength(0);

    receiver.echoChallenge = true;
    const verified = await h.http.post(`/v1/webhook-subscriptions/${created.body.id}/verify`).set(api());
    expect(verified.status).toBe(200);
    expect(verified.body.status).toBe('active');
    await createUser();
    await settled();
    expect(receiver.acknowledged('user.created')).toHaveLength(1);
  });

  it('delivers the Event as GET /v1/events shows it, signed with Ed25519 (v1a) and with the Standard Webhooks secret (v1)', async () => {
    const { body: subscription } = await subscribe();
    const user = await createUser();
    await settled();
    const [delivery] = receiver.acknowledged('user.created');
    expect(delivery).toBeDefined();

    const eventId = delivery.headers['webhook-id'] as string;
    const event = await h.http.get(`/v1/events/${eventId}`).set(api());
    expect(JSON.parse(delivery.rawBody)).toEqual(event.body);
    expect(event.body).toMatchObject({ eventName: 'user.created', userId: user.body.id, data: user.body });

    const { body: publicKey } = await h.http.get('/v1/webhook-subscriptions/public-key').set(api());
    expect(publicKey).toMatchObject({ algorithm: 'ed25519', keyId: expect.stringMatching(/^whk_/) });
    expect(Buffer.from(publicKey.publicKey, 'base64')).toHaveLength(32);
    const timestamp = delivery.headers['webhook-timestamp'] as string;
    const signatures = (delivery.headers['webhook-signature'] as string).split(' ');
    const ed25519 = signatures.filter((s) => s.startsWith('v1a,')).map((s) => s.slice(4));
    expect(ed25519).toHaveLength(1);
    const content = Buffer.from(`${eventId}.${timestamp}.${delivery.rawBody}`);
    expect(verify(null, content, ed25519Key(publicKey.publicKey), Buffer.from(ed25519[0], 'base64'))).toBe(
      true,
    );
    expect(
      verify(
        null,
        Buffer.from(`${eventId}.${timestamp}.{}`),
        ed25519Key(publicKey.publicKey),
        Buffer.from(ed25519[0], 'base64'),
      ),
    ).toBe(false);

    // The official Standard Webhooks verifier, unchanged, accepts it with the subscription's secret...
    const verified = new Webhook(subscription.secret).verify(
      delivery.rawBody,
      delivery.headers as Record<string, string>,
    );
    expect(verified).toEqual(event.body);
    // ...and refuses a tampered body or another secret.
    expect(() =>
      new Webhook(subscription.secret).verify(
        delivery.rawBody.replace('Ada', 'Eve'),
        delivery.headers as Record<string, string>,
      ),
    ).toThrow();
    const other = (await subscribe()).body.secret;
    expect(() =>
      new Webhook(other).verify(delivery.rawBody, delivery.headers as Record<string, string>),
    ).toThrow();
  });

  it('lets a receiver without an API key verify with the PEM or the JWKS of the well-known URL', async () => {
    await subscribe();
    await createUser();
    await settled();
    const [delivery] = receiver.acknowledged('user.created');
    const content = Buffer.from(
      `${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.rawBody}`,
    );
    const signature = (delivery.headers['webhook-signature'] as string)
      .split(' ')
      .find((s) => s.startsWith('v1a,'));
    const signatureBytes = Buffer.from(signature?.slice(4) ?? '', 'base64');

    const pem = await h.http.get('/.well-known/webhook-signing-keys/sandbox/public-key.pem');
    expect(pem.status).toBe(200);
    expect(pem.headers['content-type']).toContain('application/x-pem-file');
    expect(verify(null, content, pem.text, signatureBytes)).toBe(true);

    const jwks = await h.http.get('/.well-known/webhook-signing-keys/sandbox/jwks.json');
    expect(jwks.status).toBe(200);
    const authenticated = (await h.http.get('/v1/webhook-subscriptions/public-key').set(api())).body;
    expect(jwks.body.keys).toEqual([
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: expect.any(String),
        kid: authenticated.keyId,
        alg: 'EdDSA',
        use: 'sig',
      },
    ]);
    expect(authenticated.pem).toBe(pem.text);
    const [jwk] = jwks.body.keys;
    expect(verify(null, content, createPublicKey({ key: jwk, format: 'jwk' }), signatureBytes)).toBe(true);

    // Production has its own keys; anything else is a 404 in the error shape.
    const production = await h.http.get('/.well-known/webhook-signing-keys/production/jwks.json');
    expect(production.body.keys[0].kid).not.toBe(authenticated.keyId);
    const unknown = await h.http.get('/.well-known/webhook-signing-keys/staging/jwks.json');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('shows each delivery with its attempts, and redelivers an Event on request', async () => {
    const { body: subscription } = await subscribe();
    await createUser();
    await settled();
    const [delivery] = receiver.acknowledged('user.created');
    const eventId = delivery.body.eventId!;

    const log = await h.http
      .get(`/v1/webhook-subscriptions/${subscription.id}/deliveries`)
      .query({ eventId })
      .set(api());
    expect(log.status).toBe(200);
    expect(log.body.count).toBe(1);
    expect(log.body.items[0]).toMatchObject({
      subscriptionId: subscription.id,
      eventId,
      eventName: 'user.created',
      status: 'succeeded',
      redelivery: false,
      lane: 'standard',
      nextAttemptAt: null,
      attempts: [{ attempt: 1, statusCode: 200, error: null, latencyMs: expect.any(Number) }],
    });
    expect(log.body.items[0]).not.toHaveProperty('distributorId');

    const redelivered = await h.http.post(`/v1/events/${eventId}/redeliver`).set(api());
    expect(redelivered.status).toBe(202);
    expect(redelivered.body.deliveries).toEqual([
      expect.objectContaining({ eventId, redelivery: true, status: 'pending' }),
    ]);
    await settled();
    expect(receiver.acknowledged('user.created').map((r) => r.headers['webhook-id'])).toEqual([
      eventId,
      eventId,
    ]);
    const all = await h.http
      .get(`/v1/webhook-subscriptions/${subscription.id}/deliveries`)
      .query({ eventId, status: 'succeeded' })
      .set(api());
    expect(all.body.count).toBe(2);
  });

  it('after a key rotation signs with both keys during the overlap, each verifiable with its public key', async () => {
    await subscribe();
    const before = (await h.http.get('/v1/webhook-subscriptions/public-key').set(api())).body;
    rotateSigningKey({ dataDir: h.dataDir, environment: 'sandbox', overlapMs: 3_600_000, now: new Date() });
    let after = before;
    // The platform re-reads the key file at most once a second.
    await waitFor(
      async () =>
        (after = (await h.http.get('/v1/webhook-subscriptions/public-key').set(api())).body).keyId !==
        before.keyId,
      { what: 'the platform to serve the rotated signing key', timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(after.keys.map((k: { keyId: string }) => k.keyId)).toEqual([after.keyId, before.keyId]);
    expect(after.keys[1].retiresAt).toEqual(expect.any(String));

    await createUser();
    await settled();
    const [delivery] = receiver.acknowledged('user.created');
    const content = Buffer.from(
      `${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.rawBody}`,
    );
    const signatures = (delivery.headers['webhook-signature'] as string)
      .split(' ')
      .filter((s) => s.startsWith('v1a,'))
      .map((s) => Buffer.from(s.slice(4), 'base64'));
    expect(signatures).toHaveLength(2);
    expect(verify(null, content, ed25519Key(after.publicKey), signatures[0])).toBe(true);
    expect(verify(null, content, ed25519Key(before.publicKey), signatures[1])).toBe(true);
  });

  it("answers 404 for another distributor's subscription, Event or unknown ids", async () => {
    const { body: subscription } = await subscribe();
    const other = await h.newDistributor();
    const theirs = { 'x-api-key': other.sandboxKey };
    expect((await h.http.get(`/v1/webhook-subscriptions/${subscription.id}`).set(theirs)).status).toBe(404);
    expect((await h.http.delete(`/v1/webhook-subscriptions/${subscription.id}`).set(theirs)).status).toBe(
      404,
    );
    expect(
      (await h.http.get(`/v1/webhook-subscriptions/${subscription.id}/deliveries`).set(theirs)).status,
    ).toBe(404);
    expect((await h.http.get('/v1/webhook-subscriptions/whs-nope').set(api())).status).toBe(404);
    const event = (await h.http.get('/v1/events').set(api())).body.items[0];
    expect((await h.http.post(`/v1/events/${event.eventId}/redeliver`).set(theirs)).status).toBe(404);
    expect((await h.http.get(`/v1/webhook-subscriptions/${subscription.id}`).set(api())).status).toBe(200);
  });

  it('changing the url needs verification again; deleting stops deliveries', async () => {
    const { body: subscription } = await subscribe();
    await settled();
    const second = await new WebhookReceiver().start();
    try {
      second.echoChallenge = false;
      const changed = await h.http
        .put(`/v1/webhook-subscriptions/${subscription.id}`)
        .set({ ...api(), ...json })
        .send({ url: second.url });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ url: second.url, status: 'unverified', verifiedAt: null });
      await createUser();
      await settled();
      expect(receiver.deliveries.map((r) => r.body.eventName)).toEqual(['webhookSubscription.verified']);
      expect(second.deliveries).toHaveLength(0);

      const removed = await h.http.delete(`/v1/webhook-subscriptions/${subscription.id}`).set(api());
      expect(removed.status).toBe(204);
      expect((await h.http.get(`/v1/webhook-subscriptions/${subscription.id}`).set(api())).status).toBe(404);
      expect((await h.http.get('/v1/webhook-subscriptions').set(api())).body.count).toBe(0);
      const names = (
        await h.http.get('/v1/events').query({ sortBy: 'createdAt', limit: 20 }).set(api())
      ).body.items.map((e: { eventName: string }) => e.eventName);
      expect(names.filter((n: string) => n.startsWith('webhookSubscription.'))).toEqual([
        'webhookSubscription.created',
        'webhookSubscription.verified',
        'webhookSubscription.updated',
        'webhookSubscription.deleted',
      ]);
    } finally {
      await second.stop();
    }
  });

  itOnEmbeddedStores(
    'one log read in order: on Kafka the order is kept per entity, not across (API-DECISIONS, "Order")',
    'sends a subscription the Events from its verification on, its own verified Event first',
    async () => {
      await subscribe();
      await createUser();
      await settled();
      expect(receiver.acknowledged().map((r) => r.body.eventName)).toEqual([
        'webhookSubscription.verified',
        'user.created',
      ]);
    },
  );

  it('disables the subscription at once when the endpoint answers 410 Gone', async () => {
    const { body: subscription } = await subscribe();
    await settled();
    receiver.answer = () => ({ status: 410 });
    await createUser();
    await settled();
    const read = await h.http.get(`/v1/webhook-subscriptions/${subscription.id}`).set(api());
    expect(read.body).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
    await settled();
    const disabled = await h.http
      .get('/v1/events')
      .query({ eventName: 'webhookSubscription.disabled' })
      .set(api());
    expect(disabled.body.items).toEqual([
      expect.objectContaining({
        eventTargetId: subscription.id,
        data: expect.objectContaining({ disabledReason: 'gone' }),
      }),
    ]);
    await createUser();
    await settled();
    expect(receiver.deliveries.map((r) => [r.body.eventName, r.status])).toEqual([
      ['webhookSubscription.verified', 200],
      ['user.created', 410],
    ]);
  });
});
