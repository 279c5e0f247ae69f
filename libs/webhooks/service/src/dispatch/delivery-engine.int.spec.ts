import type { PublicEventName } from '@cip/shared/contracts';
import { SqliteReadStore } from '@cip/shared/read-store';
import {
  createLogger,
  ManualClock,
  openSqliteDatabase,
  systemResolver,
  WebhookHttpClient,
} from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import type { WebhookDelivery } from '@cip/webhooks/read-models';
import type { WebhookSubscriptionRecord } from '@cip/webhooks/domain';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { SigningKeyRing } from '../signing/signing-keys';
import { newSubscriptionSecret } from '../signing/webhook-signature';
import { DeliveryEngine } from './delivery-engine';
import { WebhookMetrics } from './webhook-metrics';

describe('delivery engine: the express lane', () => {
  let server: Server;
  let url: string;
  let dataDir: string;
  const held: ServerResponse[] = [];
  const received: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-engine-'));
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventName: string };
        received.push(event.eventName);
        // A slow endpoint: ordinary Events are answered only when the test says so.
        if (event.eventName === 'cardAuthentication.created') res.writeHead(200).end();
        else held.push(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers a 3-D Secure Event at once while a backlog of other Events waits on a slow endpoint', async () => {
    const clock = new ManualClock();
    const subscription = {
      subscriptionId: 'whs-1',
      distributorId: 'dst-1',
      status: 'active',
      url,
    } as WebhookSubscriptionRecord;
    const entry = { subscription, url: new URL(url), secret: newSubscriptionSecret() };
    const http = new WebhookHttpClient({
      allowPrivate: true,
      resolver: systemResolver,
      timeoutMs: 10_000,
      maxResponseBytes: 1024,
      maxSocketsPerOrigin: 256,
    });
    const engine = new DeliveryEngine(
      {
        directory: { get: () => entry },
        http,
        keys: () => new SigningKeyRing({ dataDir, environment: 'sandbox' }, clock),
        readStore: () => new SqliteReadStore(openSqliteDatabase(':memory:')),
        events: { findEvent: async () => null },
        reportOutcome: async () => undefined,
        clock,
        metrics: new WebhookMetrics(new Registry()),
        logger: createLogger('silent'),
      },
      {
        concurrency: { express: 4, standard: 16 },
        breaker: { resetTimeoutMs: 60_000, volumeThreshold: 10, errorThresholdPercentage: 50 },
      },
    );
    const job = (n: number, eventName: PublicEventName, lane: 'express' | 'standard') => {
      const delivery: WebhookDelivery = {
        id: `whd-${n}`,
        subscriptionId: 'whs-1',
        distributorId: 'dst-1',
        eventId: `evt-${n}`,
        eventName,
        userId: `usr-${n}`,
        status: 'pending',
        redelivery: false,
        eventCreatedAt: clock.now().toISOString(),
        sequence: n,
        lane,
        queueKey: `whs-1|usr-${n}`,
        attempts: [],
        nextAttemptAt: null,
        createdAt: clock.now().toISOString(),
        updatedAt: clock.now().toISOString(),
      };
      return {
        environment: 'sandbox' as const,
        delivery,
        body: JSON.stringify({ eventId: `evt-${n}`, eventName }),
      };
    };

    engine.enqueue(Array.from({ length: 100 }, (_, n) => job(n, 'user.created', 'standard')));
    await waitFor(() => held.length === 16, { what: 'the 16 standard slots to be busy' });
    engine.enqueue([job(1000, 'cardAuthentication.created', 'express')]);
    await waitFor(() => received.includes('cardAuthentication.created'), {
      what: 'the express Event to be delivered past the busy standard slots',
    });
    // Every standard slot is still busy and 84 Events are queued behind them. The express delivery leaves
    // the backlog once the engine has read its response, a moment after the receiver counted it.
    await waitFor(() => engine.backlog === 100, { what: 'the express delivery to leave the backlog' });
    expect(held).toHaveLength(16);

    await waitFor(
      () => {
        held.splice(0).forEach((res) => res.writeHead(200).end());
        return received.filter((name) => name === 'user.created').length >= 100 && held.length === 0;
      },
      { what: 'the 100 standard Events to be delivered', intervalMs: 1 },
    );
    await engine.idle();
    expect(engine.backlog).toBe(0);
    await engine.stop();
    http.close();
  });
});
