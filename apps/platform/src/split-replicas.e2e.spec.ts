import { SplitTopology, startSplitTopology } from '@cip/platform/topologies';
import { describeWhenConfigured, waitFor, WebhookReceiver } from '@cip/shared/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSplitEngines, splitEngineVariables } from './testing/split-engines';

// ---------------------------------------------------------------------------------------------------
// Replicas on the PostgreSQL + Kafka topology: two processes of the users service share its consumer groups
// (Kafka splits the partitions between them) and a list stays right when one is killed; two webhooks
// processes elect one dispatcher, and the other takes over, with nothing lost, when the elected one is
// killed with -9. Its own database and topics on CI's cluster and broker (non-destructive to the others).
// ---------------------------------------------------------------------------------------------------

const SANDBOX_KEY = 'sk_sandbox_splitReplicasKeyAAAAAAAAAAAAAAAAAAAA';
// A dozen processes start, one is killed and a group rebalances: minutes on a busy 2-core machine (a budget).
jest.setTimeout(300_000);

type Health = { checks: Record<string, { ready: boolean; role?: string; fencingToken?: number }> };

describeWhenConfigured('DATABASE_URL', 'replicas of a service on PostgreSQL and Kafka', () => {
  describeWhenConfigured('KAFKA_BROKERS', 'two users and two webhooks processes', () => {
    let topology: SplitTopology;
    let dataDir: string;
    let receiver: WebhookReceiver;
    let users = 0;

    const call = async (method: string, path: string, body?: object) => {
      const response = await fetch(`${topology.gatewayUrl}${path}`, {
        method,
        headers: { 'x-api-key': SANDBOX_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    };
    const createUser = async (): Promise<string> => {
      const created = await call('POST', '/v1/users', {
        email: `replica-${process.pid}-${++users}@example.com`,
        firstName: 'Ada',
        lastName: 'Lovelace',
        countryOfResidence: 'FR',
      });
      expect(created.status).toBe(201);
      return created.body.id as string;
    };
    const listedIds = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (let page = await call('GET', '/v1/users?limit=100'); ;) {
        ids.push(...page.body.items.map((user: { id: string }) => user.id));
        if (!page.body.nextCursor) return ids;
        page = await call('GET', `/v1/users?limit=100&cursor=${page.body.nextCursor}`);
      }
    };
    const processNamed = (name: string) => {
      const found = topology.services.find((candidate) => candidate.name === name);
      if (!found) throw new Error(`No process ${name}`);
      return found;
    };
    const health = async (name: string): Promise<Health> =>
      (await fetch(`http://127.0.0.1:${processNamed(name).ports.health}/health`)).json() as Promise<Health>;
    /** The groups a process consumed batches of on the sandbox's Kafka topics (its consumer_lag gauges). */
    const groupsHandledBy = async (name: string): Promise<string[]> => {
      const text = await (await fetch(`http://127.0.0.1:${processNamed(name).ports.health}/metrics`)).text();
      return [...text.matchAll(/^consumer_lag_events\{store="kafka:sandbox",group="([^"]+)"\}/gm)].map(
        (match) => match[1],
      );
    };

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'cip-split-replicas-'));
      topology = await startSplitTopology({
        dataDir,
        driver: 'postgres',
        ports: 'free',
        sandboxKey: SANDBOX_KEY,
        replicas: { users: 2, webhooks: 2 },
        startTimeoutMs: 150_000,
        env: {
          ...(await splitEngineVariables(dataDir)),
          LOG_LEVEL: 'warn',
          WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
          RATE_LIMIT_PER_SECOND: '100000',
          RATE_LIMIT_BURST: '100000',
        },
      });
      receiver = await new WebhookReceiver().start();
      const subscription = await call('POST', '/v1/webhook-subscriptions', { url: receiver.url });
      expect(subscription.status).toBe(201);
    });

    afterAll(async () => {
      await topology?.close();
      await receiver?.stop();
      if (dataDir) {
        await dropSplitEngines(dataDir);
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('both users processes take batches of the same consumer group; a list stays whole when one is killed', async () => {
      const before: string[] = [];
      for (let i = 0; i < 24; i++) before.push(await createUser());
      expect(await listedIds()).toEqual(expect.arrayContaining(before));
      // Each replica was given a partition of the users' topic: both handled batches of the read model's group.
      const first = await groupsHandledBy('users');
      const second = await groupsHandledBy('users-2');
      expect(first.filter((group) => second.includes(group)).length).toBeGreaterThan(0);

      await processNamed('users-2').kill('SIGKILL');
      const after: string[] = [];
      for (let i = 0; i < 12; i++) after.push(await createUser());
      // The survivor is given the dead one's partitions (after the group's rebalance) and catches up.
      await waitFor(
        async () => (await listedIds()).filter((id) => after.includes(id)).length === after.length,
        {
          what: 'the users created after the kill, listed',
          timeoutMs: 90_000,
          intervalMs: 250,
        },
      );
      expect(await listedIds()).toEqual(expect.arrayContaining([...before, ...after]));
    });

    it('one webhooks process is the elected dispatcher; killed with -9, the other takes over and delivers every Event', async () => {
      const roles = async () =>
        Object.fromEntries(
          await Promise.all(
            ['webhooks', 'webhooks-2'].map(
              async (name) => [name, (await health(name)).checks['webhooks:dispatcher']?.role] as const,
            ),
          ),
        );
      await waitFor(async () => Object.values(await roles()).includes('leader'), {
        what: 'an elected dispatcher',
        timeoutMs: 30_000,
      });
      const elected = await roles();
      expect(Object.values(elected).sort()).toEqual(['leader', 'standby']);
      const leader = Object.keys(elected).find((name) => elected[name] === 'leader') as string;
      const standby = Object.keys(elected).find((name) => elected[name] === 'standby') as string;
      const token = (await health(leader)).checks['webhooks:dispatcher'].fencingToken as number;

      const delivered = (userId: string) =>
        receiver
          .acknowledged('user.created')
          .some((request) => (request.body as { userId?: string }).userId === userId);
      const first = await createUser();
      await waitFor(async () => delivered(first), { what: `user.created of ${first}`, timeoutMs: 30_000 });

      await processNamed(leader).kill('SIGKILL');
      const afterKill: string[] = [];
      for (let i = 0; i < 5; i++) afterKill.push(await createUser());
      await waitFor(async () => (await health(standby)).checks['webhooks:dispatcher']?.role === 'leader', {
        what: `${standby} elected`,
        timeoutMs: 30_000,
      });
      expect((await health(standby)).checks['webhooks:dispatcher'].fencingToken).toBeGreaterThan(token);
      // At least once: every Event of the users created while no dispatcher ran is delivered by the new one.
      await waitFor(async () => afterKill.every(delivered), {
        what: 'user.created of every user created after the kill',
        timeoutMs: 60_000,
      });
    });
  });
});
