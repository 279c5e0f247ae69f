import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@cip/shared/testing';
import { spawnService, splitEnvironment, SplitProcess, stopServices } from './testing/split-services';

// The split platform on the embedded driver, in part: the users service, the webhooks service (it records
// the Events) and the gateway, three processes on one DATA_DIR. The whole split journey is
// split-topology.e2e.spec.ts.

describe('split platform: gateway -> users service, Events recorded by the webhooks service', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-split-'));
  const processes: SplitProcess[] = [];
  let gateway: SplitProcess;
  let sandboxKey: string;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.httpUrl}${path}`, {
      method,
      headers: { 'x-api-key': sandboxKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    const env = await splitEnvironment(dataDir);
    // One after the other: the first process creates the SQLite files and the secrets.
    processes.push(await spawnService('users', env));
    processes.push(await spawnService('webhooks', env));
    gateway = await spawnService('gateway', env);
    processes.push(gateway);
    // The first start on the embedded driver shows the default distributor's sandbox key, as `npm start` does.
    await waitFor(() => /sandbox API key {2}sk_sandbox_\S+/.test(gateway.output()), {
      what: "the gateway's banner with the first sandbox key",
    });
    sandboxKey = /sandbox API key {2}(sk_sandbox_\S+)/.exec(gateway.output())?.[1] ?? '';
  }, 120_000);

  afterAll(async () => {
    await stopServices(processes);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a user through the gateway, lists it, and shows its user.created Event', async () => {
    const email = `split-${Date.now()}@example.com`;
    const created = await call('POST', '/v1/users', {
      email,
      firstName: 'Ada',
      lastName: 'Lovelace',
      countryOfResidence: 'FR',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email, status: 'onboarding' });

    const listed = await call('GET', `/v1/users?email=${encodeURIComponent(email)}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ count: 1, items: [created.body] });

    const events = await call('GET', `/v1/events?userId=${String(created.body.id)}`);
    expect(events.status).toBe(200);
    expect(events.body.items).toEqual([
      expect.objectContaining({ eventName: 'user.created', data: created.body }),
    ]);
  });

  it('answers 503 service_unavailable for a context whose service is not running', async () => {
    const kyc = await call('GET', '/v1/kycs');
    expect(kyc.status).toBe(503);
    expect(kyc.body).toMatchObject({ error: { code: 'service_unavailable' } });
  });
});
