import { PLATFORM_SERVICES } from '@cip/platform/registry';
import { METRICS, type PlatformMetrics } from '@cip/shared/runtime';
import pino from 'pino';
import { withScopeLog } from './testing/cardholders';
import {
  Harness,
  newUserBody,
  SANDBOX_KEY,
  splitLogLines,
  StaffSession,
  startHarness,
} from './testing/platform-harness';
import { e2eTopology, itOnOneProcess, splitStoreDriver } from './testing/topology';
import { waitFor } from '@cip/shared/testing';

// Issue 14: the control plane in the operator API (admin changes, any role reads): distributors, programs
// and API keys, each change audited with its reason, and what a distributor then meets on /v1.

describe('backoffice: distributors, programs and keys', () => {
  let h: Harness;
  let admin: StaffSession;
  let viewer: StaffSession;
  const logLines: string[] = [];

  beforeAll(async () => {
    // Every line the platform logs, at trace: in the test's process on the one-process platform, each
    // process's log file on the split topology (`splitLogLines`).
    h = await startHarness(
      e2eTopology() === 'split'
        ? { splitLogLevel: 'trace' }
        : { logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }) },
    );
    admin = await h.signInStaff('admin');
    viewer = await h.signInStaff('viewer');
  });
  afterAll(() => h.close());

  const op = () => h.operatorHttp;
  const listUsers = (apiKey: string) => h.http.get('/v1/users').set('x-api-key', apiKey);
  const auditOf = async (targetId: string) =>
    (await op().get('/operator/v1/audit').query({ targetId }).set('cookie', viewer.cookie).expect(200)).body
      .data;

  it('lists the distributors and shows one with its settings in force and its keys, never a key', async () => {
    const list = await op().get('/operator/v1/distributors').set('cookie', viewer.cookie).expect(200);
    const first = list.body.data.find((d: { isDefault: boolean }) => d.isDefault);
    const detail = await op()
      .get(`/operator/v1/distributors/${first.distributorId}`)
      .set('cookie', viewer.cookie)
      .expect(200);
    expect(detail.body.program.authorization.fees).toEqual(
      expect.objectContaining({ fx: expect.any(Number) }),
    );
    expect(detail.body.program.threeDs.challengeDeadlineSeconds).toEqual(expect.any(Number));
    expect(detail.body.keys.length).toBeGreaterThan(0);
    expect(JSON.stringify(detail.body)).not.toContain(SANDBOX_KEY);
    expect(detail.body.keys[0]).not.toHaveProperty('keyHash');
    await op()
      .get('/operator/v1/distributors/dst-00000000-0000-4000-8000-000000000000')
      .set('cookie', viewer.cookie)
      .expect(404);
  });

  it('creates a distributor, issues, rolls and revokes its key; the old key stops working on /v1', async () => {
    const created = await op()
      .post('/operator/v1/distributors')
      .set(admin.headers)
      .send({ name: 'Acme', countries: ['fr', 'DE'], prepaid: true, feeFx: '1.5%', reason: 'ONBOARD-1' })
      .expect(201);
    const distributorId: string = created.body.distributorId;
    expect(created.body.program).toMatchObject({ allowedCountries: ['FR', 'DE'], prepaid: true, b2b: false });
    expect(created.body.program.authorization.fees.fx).toBe(15_000);

    const issued = await op()
      .post(`/operator/v1/distributors/${distributorId}/keys`)
      .set(admin.headers)
      .send({ environment: 'sandbox', label: 'backend', reason: 'ONBOARD-1' })
      .expect(201);
    const first: string = issued.body.apiKey;
    expect(first).toMatch(/^sk_sandbox_/);
    await listUsers(first).expect(200);

    const rolled = await op()
      .post(`/operator/v1/keys/${issued.body.key.keyId}/roll`)
      .set(admin.headers)
      .send({ reason: 'LEAK-7' })
      .expect(200);
    const second: string = rolled.body.apiKey;
    expect(second).not.toBe(first);
    expect(rolled.body.key).toMatchObject({
      environment: 'sandbox',
      label: 'backend',
      status: 'active',
      last4: second.slice(-4),
    });
    expect((await listUsers(first)).status).toBe(401);
    await listUsers(second).expect(200);

    const shown = await op()
      .get(`/operator/v1/distributors/${distributorId}`)
      .set('cookie', viewer.cookie)
      .expect(200);
    expect(JSON.stringify(shown.body)).not.toContain(second);
    expect(shown.body.keys.map((k: { status: string }) => k.status).sort()).toEqual(['active', 'revoked']);

    await op()
      .post(`/operator/v1/keys/${rolled.body.key.keyId}/revoke`)
      .set(admin.headers)
      .send({ reason: 'OFFBOARD-2' })
      .expect(200);
    expect((await listUsers(second)).status).toBe(401);
    const again = await op()
      .post(`/operator/v1/keys/${rolled.body.key.keyId}/revoke`)
      .set(admin.headers)
      .send({ reason: 'OFFBOARD-2' })
      .expect(409);
    expect(again.body.error.code).toBe('invalid_state_transition');

    const actions = (await auditOf(distributorId)).map(
      (e: { action: string; reason: string }) => `${e.action} ${e.reason}`,
    );
    expect(actions).toEqual(['key.issue ONBOARD-1', 'distributor.create ONBOARD-1']);
    const keyActions = (await auditOf(issued.body.key.keyId)).map(
      (e: { action: string; staff: { id: string } }) => [e.action, e.staff.id],
    );
    expect(keyActions).toEqual([['key.roll', admin.staffId]]);
    const refused = await auditOf(rolled.body.key.keyId);
    expect(refused.map((e: { action: string; outcome: string }) => `${e.action}:${e.outcome}`)).toEqual([
      'key.revoke:refused',
      'key.revoke:succeeded',
    ]);

    const log =
      (h.topology === 'split' ? splitLogLines(h) : logLines).join('') +
      JSON.stringify(
        await withScopeLog(h, 'control', (control) =>
          control.storedEventStore.readAll({ after: 0, maxCount: 100_000 }),
        ),
      );
    expect(log).not.toContain(first);
    expect(log).not.toContain(second);
  });

  it('applies a program change to the next /v1 call', async () => {
    const { distributorId, sandboxKey } = await h.newDistributor({ allowedCountries: ['FR'] });
    const create = () =>
      h.http
        .post('/v1/users')
        .set('x-api-key', sandboxKey)
        .send(newUserBody({ countryOfResidence: 'US' }));
    expect((await create()).body.error.code).toBe('country_not_allowed');
    const configured = await op()
      .patch(`/operator/v1/distributors/${distributorId}/program`)
      .set(admin.headers)
      .send({
        countries: ['FR', 'US'],
        threeDsDeadline: '3m',
        fxRates: { EUR: '1.0856', JPY: null },
        reason: 'CHG-5',
      })
      .expect(200);
    expect(configured.body.program.threeDs).toEqual({ challengeDeadlineSeconds: 180 });
    expect(configured.body.program.authorization.fxRates).toMatchObject({ EUR: '1.0856' });
    expect(configured.body.program.authorization.fxRates).not.toHaveProperty('JPY');
    await create().expect(201);
  });

  it('refuses invalid settings naming each field, and changes nothing', async () => {
    const { distributorId } = await h.newDistributor();
    const before = (
      await op().get(`/operator/v1/distributors/${distributorId}`).set('cookie', admin.cookie).expect(200)
    ).body;
    const refused = await op()
      .patch(`/operator/v1/distributors/${distributorId}/program`)
      .set(admin.headers)
      .send({ feeFx: 'two percent', threeDsDeadline: '20m', fxRates: { EUR: '-1' }, reason: 'CHG-6' })
      .expect(400);
    expect(refused.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'feeFx',
      'fxRates.EUR',
      'threeDsDeadline',
    ]);
    const outOfRange = await op()
      .patch(`/operator/v1/distributors/${distributorId}/program`)
      .set(admin.headers)
      .send({ holdExpiryDays: 40, reason: 'CHG-6' })
      .expect(400);
    expect(outOfRange.body.error.details).toEqual([expect.objectContaining({ field: 'holdExpiryDays' })]);
    const noReason = await op()
      .patch(`/operator/v1/distributors/${distributorId}/program`)
      .set(admin.headers)
      .send({ b2b: true })
      .expect(400);
    expect(noReason.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'reason' })]),
    );
    const after = (
      await op().get(`/operator/v1/distributors/${distributorId}`).set('cookie', admin.cookie).expect(200)
    ).body;
    expect(after).toEqual(before);
  });

  it('refuses every control-plane change to a viewer', async () => {
    const { distributorId } = await h.newDistributor();
    const detail = (
      await op().get(`/operator/v1/distributors/${distributorId}`).set('cookie', viewer.cookie).expect(200)
    ).body;
    const changes = await Promise.all([
      op().post('/operator/v1/distributors').set(viewer.headers).send({ name: 'X', reason: 'R-1' }),
      op()
        .patch(`/operator/v1/distributors/${distributorId}/program`)
        .set(viewer.headers)
        .send({ b2b: true, reason: 'R-1' }),
      op()
        .post(`/operator/v1/distributors/${distributorId}/keys`)
        .set(viewer.headers)
        .send({ environment: 'sandbox', reason: 'R-1' }),
      op().post(`/operator/v1/keys/${detail.keys[0].keyId}/roll`).set(viewer.headers).send({ reason: 'R-1' }),
      op()
        .post(`/operator/v1/keys/${detail.keys[0].keyId}/revoke`)
        .set(viewer.headers)
        .send({ reason: 'R-1' }),
    ]);
    expect(changes.map((c) => c.status)).toEqual([403, 403, 403, 403, 403]);
    expect(
      (await op().get(`/operator/v1/distributors/${distributorId}`).set('cookie', viewer.cookie).expect(200))
        .body,
    ).toEqual(detail);
  });

  it('shows every process of the platform reporting, and each consumer group with the process running it', async () => {
    // One process embedded; split, one per service plus the gateway, the dashboard (and the relay) (each wrote its report
    // as it started; the dashboard's own is taken as the page is asked for).
    const expected =
      e2eTopology() === 'split'
        ? [
            ...PLATFORM_SERVICES.map(({ name }) => name),
            'gateway',
            'dashboard',
            // On the servers, the relay from the log to Kafka reports too.
            ...(splitStoreDriver() === 'postgres' ? ['relay'] : []),
          ].sort()
        : ['platform'];
    let body: {
      processes: { process: string; reporting: boolean; reportedAt: string }[];
      consumers: { scope: string; group: string; lagEvents: number; process: string }[];
    } = { processes: [], consumers: [] };
    await waitFor(
      async () => {
        body = (await op().get('/operator/v1/health').set('cookie', viewer.cookie).expect(200)).body;
        return body.processes.filter((p) => p.reporting).length >= expected.length;
      },
      { what: 'a report of every process', timeoutMs: 30_000 },
    );
    expect(body.processes.map((p) => p.process).sort()).toEqual(expected);
    expect(body.processes.every((p) => p.reporting)).toBe(true);
    // The wallets context's provisioning group runs in the wallets service when split.
    expect(body.consumers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          scope: 'sandbox',
          group: 'wallets.provisioning',
          process: e2eTopology() === 'split' ? 'wallets' : 'platform',
          lagEvents: expect.any(Number),
        }),
      ]),
    );
  });

  itOnOneProcess(
    'records the 5xx in the platform process itself; the report of each process is covered by process-health.int.spec',
    'shows the system health: consumer lag, recent 5xx of /v1 and the webhook backlog',
    async () => {
      const metrics = h.platform.app.get<PlatformMetrics>(METRICS, { strict: false });
      metrics.recentServerErrors.record({
        at: new Date().toISOString(),
        method: 'GET',
        route: '/v1/users/:userId',
        status: 500,
        requestId: 'req_health-test',
      });
      const health = await op().get('/operator/v1/health').set('cookie', viewer.cookie).expect(200);
      expect(health.body.consumers).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ scope: 'sandbox', lagEvents: expect.any(Number) }),
        ]),
      );
      expect(health.body.serverErrors.lastHour).toBeGreaterThanOrEqual(1);
      expect(health.body.serverErrors.last[0]).toMatchObject({ requestId: 'req_health-test', status: 500 });
      expect(health.body.webhookBacklog).toEqual([
        { environment: 'sandbox', pending: expect.any(Number) },
        { environment: 'production', pending: expect.any(Number) },
      ]);
      await op().get('/operator/v1/health').expect(401);
    },
  );

  it("shows the health page to staff only, and each process's consumer lag on its /metrics", async () => {
    const health = await op().get('/operator/v1/health').set('cookie', viewer.cookie).expect(200);
    expect(health.body.webhookBacklog).toEqual([
      { environment: 'sandbox', pending: expect.any(Number) },
      { environment: 'production', pending: expect.any(Number) },
    ]);
    await op().get('/operator/v1/health').expect(401);
    // What an operator scrapes: the services' /metrics (one address on the one-process platform). The tests
    // above made users on the sandbox log, so its groups have progressed and set their lag.
    const urls = [...new Set(PLATFORM_SERVICES.map(({ name }) => h.systemUrl(name)))];
    const sandboxLag = (
      await Promise.all(urls.map(async (url) => (await fetch(`${url}/metrics`)).text()))
    ).flatMap((text) =>
      text.split('\n').filter((line) => /^consumer_lag_events\{[^}]*store="[a-z]+:sandbox"/.test(line)),
    );
    expect(sandboxLag).toEqual(expect.arrayContaining([expect.stringMatching(/group="[^"]+"\} \d+$/)]));
  });
});
