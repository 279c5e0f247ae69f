import type { AuthorizationFacts } from '@cip/authorizations/domain';
import { createLogger, systemClock, systemResolver } from '@cip/shared/runtime';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { ActiveDecisioning } from './decisioning-configs';
import { DecisioningMetrics } from './decisioning-metrics';
import { DistributorDecisioning } from './distributor-decisioning';

// The breaker of a distributor's endpoint: once it keeps failing, authorizations stop calling it (and stop
// waiting for it) and take onTimeout at once. Real HTTP on loopback; the breaker is opossum's.

const parties = {
  authorizationId: 'aut-1',
  distributorId: 'dst-1',
  cardId: 'crd-1',
  userId: 'usr-1',
  walletId: 'wlt-1',
};
const facts = (): AuthorizationFacts => ({
  request: {
    merchant: { name: 'Cafe Lumen', city: 'Paris', country: 'FR', mcc: '5812' },
    merchantAmount: 1_000,
    merchantCurrency: 'USD',
    at: '2026-11-23T12:00:00.000Z',
  },
  card: { status: 'active', blocks: [], expMonth: 11, expYear: 2029 },
  userStatus: 'active',
  verification: null,
  controls: { ok: true },
  availableBalance: Number.MAX_SAFE_INTEGER,
  program: { fxRates: {}, fees: {} },
});

describe('distributor decisioning endpoint breaker', () => {
  let server: Server;
  let hits = 0;
  let respond: (res: ServerResponse, req: IncomingMessage) => void;
  const held: ServerResponse[] = [];
  let registry: Registry;
  let decisioning: DistributorDecisioning;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () => respond(res, req));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterEach(() => {
    decisioning.shutdown();
    for (const res of held.splice(0)) res.end();
  });

  function start(timeoutMs: number) {
    hits = 0;
    registry = new Registry();
    const config: ActiveDecisioning = {
      url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/decide?t=${timeoutMs}`),
      timeoutMs,
      onTimeout: 'decline',
      secret: 'whsec_' + Buffer.alloc(32, 7).toString('base64'),
    };
    decisioning = new DistributorDecisioning(
      { active: async () => config },
      () => ({
        allowPrivate: true,
        resolver: systemResolver,
        timeoutMs: 10_000,
        maxResponseBytes: 1024,
        maxSocketsPerOrigin: 8,
      }),
      systemClock,
      createLogger('silent'),
      new DecisioningMetrics(registry),
      { breakerResetTimeoutMs: 60_000 },
    );
  }

  const outcomes = async () =>
    Object.fromEntries(
      (await registry.getSingleMetric('authorization_decisioning_outcomes_total')!.get()).values.map((v) => [
        v.labels.outcome,
        v.value,
      ]),
    );

  it('an endpoint answering 500 is no longer called once its circuit opens; onTimeout applies at once', async () => {
    start(1_000);
    respond = (res) => res.writeHead(500).end();
    for (let i = 0; i < 5; i++) {
      const f = facts();
      expect(await decisioning.decide('sandbox', parties, f)).toMatchObject({ decision: 'rejected' });
      expect(f.distributor).toMatchObject({
        decidedBy: 'distributorTimeout',
        detail: 'distributor answered HTTP 500',
      });
    }
    expect(hits).toBe(5);
    const f = facts();
    expect(await decisioning.decide('sandbox', parties, f)).toMatchObject({
      decision: 'rejected',
      decidedBy: 'distributorTimeout',
    });
    expect(f.distributor?.detail).toMatch(/circuit open/);
    expect(hits).toBe(5);
    expect(await outcomes()).toEqual({ error: 5, circuit_open: 1 });
  });

  it('a silent endpoint opens the circuit too: later authorizations do not wait for it', async () => {
    start(100);
    respond = (res) => held.push(res);
    for (let i = 0; i < 5; i++) {
      const f = facts();
      await decisioning.decide('sandbox', parties, f);
      expect(f.distributor?.detail).toBe('distributor did not answer in time');
    }
    const f = facts();
    await decisioning.decide('sandbox', parties, f);
    expect(f.distributor?.detail).toMatch(/circuit open/);
    expect(hits).toBe(5);
    expect(await outcomes()).toEqual({ timeout: 5, circuit_open: 1 });
  });

  it('asks nothing when the platform declined on its own, or for an advice', async () => {
    start(1_000);
    respond = (res) => res.writeHead(200).end('{"decision":"approve"}');
    await decisioning.decide('sandbox', parties, { ...facts(), userStatus: 'frozen' });
    await decisioning.decide('sandbox', parties, {
      ...facts(),
      request: { ...facts().request, advice: 'stand_in' },
    });
    expect(hits).toBe(0);
    const f = facts();
    expect(await decisioning.decide('sandbox', parties, f)).toMatchObject({
      decision: 'confirmed',
      decidedBy: 'distributor',
    });
    expect(hits).toBe(1);
  });
});
