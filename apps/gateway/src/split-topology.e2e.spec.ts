import {
  exited,
  freePort,
  listening,
  spawnPlatform,
  SplitStoreDriver,
  SplitTopology,
  startSplitTopology,
} from '@cip/platform/topologies';
import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';

// ---------------------------------------------------------------------------------------------------
// The platform split into its processes (`npm run start:split`: every service of PLATFORM_SERVICES, the
// gateway, the dashboard, on one DATA_DIR) proven over HTTP through the gateway only: the journey across
// every context, the same journey on the one-process platform (`npm start`), and a kill -9 of one service
// under load. SPLIT_STORE_DRIVER=distributed (with EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL) runs the split
// topology on the servers instead of the embedded stores (the public CI workflow does).
// ---------------------------------------------------------------------------------------------------

const SANDBOX_KEY = 'sk_sandbox_splitTopologyKeyAAAAAAAAAAAAAAAAAAAA';
/** Loopback webhook receivers, a quiet log, no rate limit in the way of the load. */
const ENV = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '100000' };
const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };

interface Answer {
  status: number;
  // The API's JSON, whatever the operation.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A distributor's calls over /v1 with the sandbox key. */
function distributor(baseUrl: string, key: string) {
  const call = async (method: string, path: string, body?: object): Promise<Answer> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  return {
    post: (path: string, body: object = {}) => call('POST', path, body),
    put: (path: string, body: object) => call('PUT', path, body),
    get: (path: string, query: Record<string, string> = {}) =>
      call('GET', `${path}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`),
  };
}
type Distributor = ReturnType<typeof distributor>;

let users = 0;
const newUser = () => ({
  email: `split-${process.pid}-${Date.now()}-${++users}@example.com`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  countryOfResidence: 'FR',
});

/**
 * Integration order 1-8 and 3D Secure as a distributor lives it: a webhook subscription, a user, KYC approved
 * and the wallet it gives, a deposit, a virtual card, a payment authorized through the sandbox card network
 * and cleared, a 3DS challenge accepted; every list read right after the write that changed it, and every
 * Event received signed.
 */
async function journey(api: Distributor): Promise<void> {
  const receiver = await new WebhookReceiver().start();
  try {
    const subscription = await api.post('/v1/webhook-subscriptions', { url: receiver.url });
    expect(subscription.status).toBe(201);
    const secret: string = subscription.body.secret;

    const user = await api.post('/v1/users', newUser());
    expect(user.status).toBe(201);
    const userId: string = user.body.id;
    expect((await api.get('/v1/users', { limit: '100' })).body.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: userId })]),
    );

    const kyc = await api.put('/v1/kycs', { userId, type: 'full' });
    expect(kyc.status).toBe(201);
    expect((await api.post(`/v1/simulate/kyc/${kyc.body.id}/complete`)).status).toBe(200);
    expect((await api.post(`/v1/simulate/kyc/${kyc.body.id}/approve`)).body).toMatchObject({
      userActivated: true,
    });
    expect((await api.get(`/v1/users/${userId}`)).body.status).toBe('active');
    // The wallet a saga of another service provisions on the activation: listed at once.
    const wallets = await api.get('/v1/wallets', { userId });
    expect(wallets.body.items).toEqual([expect.objectContaining({ status: 'active' })]);
    const walletId: string = wallets.body.items[0].id;

    expect((await api.post('/v1/simulate/deposit', { walletId, amount: 100 })).status).toBe(201);
    const card = await api.post('/v1/cards', { userId, type: 'virtual' });
    expect(card.status).toBe(201);
    const cardId: string = card.body.id;
    expect((await api.get('/v1/cards', { userId })).body.items).toEqual([
      expect.objectContaining({ id: cardId }),
    ]);

    // A payment through the sandbox card network (ISO 8583 to the issuer), then its clearing.
    const paid = await api.post('/v1/simulate/authorization', {
      cardId,
      amount: 25,
      currency: 'USD',
      merchant,
    });
    expect(paid.status).toBe(200);
    expect(paid.body.network).toMatchObject({ requestMti: '0100', responseCode: '00' });
    const paymentId: string = paid.body.authorization.id;
    const cleared = await api.post('/v1/simulate/authorization/clearing', { authorizationId: paymentId });
    expect(cleared.body.delivered).toBe(true);
    expect((await api.get('/v1/authorizations', { userId })).body.items).toEqual([
      expect.objectContaining({ id: paymentId }),
    ]);
    expect((await api.get(`/v1/wallets/${walletId}`)).body).toMatchObject({
      balance: 75,
      availableBalance: 75,
    });

    // 3D Secure: challenged out of band, accepted by the cardholder.
    const simulated = await api.post('/v1/simulate/3ds', {
      cardId,
      merchantName: 'Corner Shop',
      merchantAmount: 42.5,
      merchantCurrency: 'EUR',
    });
    expect(simulated.body).toMatchObject({ transStatus: 'D' });
    const authenticationId: string = simulated.body.cardAuthenticationId;
    const accepted = await api.post('/v1/3ds/accept', { cardAuthenticationId: authenticationId });
    expect(accepted.body).toMatchObject({ status: 'accepted', result: { transStatus: 'Y' } });

    // Every Event of the journey delivered, each accepted by the official Standard Webhooks verifier.
    const expected = [
      ['user.created', userId],
      ['card.created', cardId],
      ['cardAuthorization.confirmed', paymentId],
      ['cardAuthorization.cleared', paymentId],
      ['cardAuthentication.created', authenticationId],
      ['cardAuthentication.accepted', authenticationId],
    ];
    const received = () =>
      receiver.deliveries.map((d) => {
        const event = new Webhook(secret).verify(d.rawBody, d.headers as Record<string, string>) as {
          eventName: string;
          eventTargetId: string;
        };
        return [event.eventName, event.eventTargetId];
      });
    await waitFor(() => expected.every(([name, id]) => received().some(([n, i]) => n === name && i === id)), {
      what: `the Events ${expected.map(([name]) => name).join(', ')} delivered`,
    });
    expect(received().filter(([name]) => name === 'balance.updated').length).toBeGreaterThan(0);
    // The Event log (another service's read model) lists them too.
    const events = await api.get('/v1/events', { limit: '100' });
    expect(events.body.items.map((e: { eventName: string }) => e.eventName)).toEqual(
      expect.arrayContaining(expected.map(([name]) => name)),
    );
  } finally {
    await receiver.stop();
  }
}

const driver = (process.env.SPLIT_STORE_DRIVER || 'embedded') as SplitStoreDriver;

describe(`the split topology (one process per service, ${driver} stores) through the gateway`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-split-'));
  let topology: SplitTopology;
  let api: Distributor;

  beforeAll(async () => {
    topology = await startSplitTopology({
      dataDir,
      driver,
      ports: 'free',
      sandboxKey: SANDBOX_KEY,
      env: ENV,
      startTimeoutMs: 120_000,
    });
    api = distributor(topology.gatewayUrl, topology.sandboxKey);
  }, 180_000);
  afterAll(async () => {
    await topology?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('runs the journey across every context: users, KYC, wallets, cards, authorizations, 3DS, webhooks', async () => {
    await journey(api);
  }, 120_000);

  it('keeps the others up while one service is killed -9 under load, fails fast, recovers, and loses no acknowledged write', async () => {
    const users = topology.services.find((s) => s.name === 'users')!;
    const gateway = topology.services.find((s) => s.name === 'gateway')!;
    const breakerOpened = () =>
      readFileSync(gateway.logFile, 'utf8')
        .split('\n')
        .some((line) => line.includes('circuit opened') && line.includes('users-service'));
    const acknowledged: string[] = [];
    const unavailable: number[] = [];
    const unexpected: Answer[] = [];
    let running = true;
    const writer = async () => {
      while (running) {
        const created = await api.post('/v1/users', newUser());
        if (created.status === 201) acknowledged.push(created.body.id);
        else if (created.status === 503 && created.body.error.code === 'service_unavailable')
          unavailable.push(acknowledged.length);
        else unexpected.push(created);
        if (created.status !== 201) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    try {
      await waitFor(() => acknowledged.length >= 20, { what: '20 users created before the kill' });
      await users.kill('SIGKILL');
      const beforeRestart = acknowledged.length;
      // The breaker opens: the gateway answers 503 at once instead of waiting on a dead service...
      await waitFor(() => unavailable.length >= 10, {
        what: '503 service_unavailable for the users service',
      });
      await waitFor(breakerOpened, { what: "the gateway's breaker of the users service opened" });
      // ...and every other service keeps answering through the same gateway.
      expect((await api.get('/v1/cards', { limit: '1' })).status).toBe(200);
      expect((await api.get('/v1/wallets', { limit: '1' })).status).toBe(200);
      expect((await api.post('/v1/webhook-subscriptions', { url: 'http://127.0.0.1:9/hooks' })).status).toBe(
        201,
      );
      await users.restart();
      // The breaker lets a trial through after its reset timeout, closes, and commands succeed again.
      await waitFor(() => acknowledged.length >= beforeRestart + 20, {
        what: '20 users created after the restart',
        timeoutMs: 60_000,
      });
    } finally {
      running = false;
      await Promise.all(writers);
    }
    expect(unexpected).toEqual([]);
    // Every user acknowledged before the kill or after the restart is there.
    const missing: string[] = [];
    for (const id of acknowledged) {
      if ((await api.get(`/v1/users/${id}`)).status !== 200) missing.push(id);
    }
    expect(missing).toEqual([]);
  }, 180_000);
});

describe('the one-process platform (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-one-process-'));
  let platform: ReturnType<typeof spawnPlatform>;
  let api: Distributor;

  beforeAll(async () => {
    const port = await freePort();
    platform = spawnPlatform({
      ...ENV,
      DATA_DIR: dataDir,
      PORT: String(port),
      BOOTSTRAP_SANDBOX_API_KEY: SANDBOX_KEY,
    });
    await listening(platform, 120_000);
    api = distributor(`http://127.0.0.1:${port}`, SANDBOX_KEY);
  }, 180_000);
  afterAll(async () => {
    platform?.child.kill('SIGTERM');
    if (platform) await exited(platform.child);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('runs the same journey', async () => {
    await journey(api);
  }, 120_000);
});
