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
import { DeliveryEngine, EngineDependencies } from './delivery-engine';
import { WebhookMetrics } from './webhook-metrics';

/** A delivery engine sending to `url` for one subscription, its metrics in `registry`. */
function engineFor(options: {
  url: string;
  dataDir: string;
  clock: ManualClock;
  registry: Registry;
  maxSocketsPerOrigin: number;
  concurrency: { express: number; standard: number };
  reportOutcome?: EngineDependencies['reportOutcome'];
}) {
  const { url, dataDir, clock } = options;
  const subscription = { subscriptionId: 'whs-1', distributorId: 'dst-1', status: 'active', url };
  const entry = {
    subscription: subscription as WebhookSubscriptionRecord,
    url: new URL(url),
    secret: newSubscriptionSecret(),
  };
  const http = new WebhookHttpClient({
    allowPrivate: true,
    resolver: systemResolver,
    timeoutMs: 10_000,
    maxResponseBytes: 1024,
    maxSocketsPerOrigin: options.maxSocketsPerOrigin,
  });
  const engine = new DeliveryEngine(
    {
      directory: { get: () => entry },
      http,
      keys: () => new SigningKeyRing({ dataDir, environment: 'sandbox' }, clock),
      readStore: () => new SqliteReadStore(openSqliteDatabase(':memory:')),
      events: { findEvent: async () => null },
      reportOutcome: options.reportOutcome ?? (async () => undefined),
      clock,
      metrics: new WebhookMetrics(options.registry),
      logger: createLogger('silent'),
    },
    {
      concurrency: options.concurrency,
      breaker: { resetTimeoutMs: 60_000, volumeThreshold: 10, errorThresholdPercentage: 50 },
    },
  );
  return { engine, http };
}

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
    const { engine, http } = engineFor({
      url,
      dataDir,
      clock,
      registry: new Registry(),
      maxSocketsPerOrigin: 256,
      concurrency: { express: 4, standard: 16 },
    });
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

/** Stops an engine of `engineFor`, its HTTP client and the receiving server, and removes its data directory. */
async function closeAll(opened: {
  engine: DeliveryEngine;
  http: WebhookHttpClient;
  server: Server;
  dataDir: string;
}) {
  await opened.engine.stop();
  opened.http.close();
  opened.server.closeAllConnections();
  await new Promise((resolve) => opened.server.close(resolve));
  rmSync(opened.dataDir, { recursive: true, force: true });
}

/** One delivery of a `user.created` Event on the standard lane, made at the clock's time. */
function standardJob(clock: ManualClock) {
  const at = clock.now().toISOString();
  return {
    environment: 'sandbox' as const,
    delivery: {
      id: 'whd-1',
      subscriptionId: 'whs-1',
      distributorId: 'dst-1',
      eventId: 'evt-1',
      eventName: 'user.created' as const,
      userId: 'usr-1',
      status: 'pending' as const,
      redelivery: false,
      eventCreatedAt: at,
      sequence: 1,
      lane: 'standard' as const,
      queueKey: 'whs-1|usr-1',
      attempts: [],
      nextAttemptAt: null,
      createdAt: at,
      updatedAt: at,
    } as WebhookDelivery,
    body: JSON.stringify({ eventId: 'evt-1', eventName: 'user.created' }),
  };
}

/** A test clock that moves 1 ms each time it is read, as time does between two readings. */
class TickingClock extends ManualClock {
  override now(): Date {
    const now = super.now();
    this.advance(1);
    return now;
  }
}

/** A test clock that tells its listeners when it is moved, as the split topology's FileClock does. */
class JumpingClock extends ManualClock {
  private readonly listeners = new Set<() => void>();
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  override advance(ms: number): void {
    super.advance(ms);
    for (const listener of this.listeners) listener();
  }
}

describe('delivery engine: retries on a clock that jumps', () => {
  it('sends a retry that came due as soon as the clock moves, and reports the time it looked at', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cip-engine-'));
    const answers = [503, 200];
    const received: number[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const status = answers[received.length] ?? 200;
        received.push(status);
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const clock = new JumpingClock();
    const registry = new Registry();
    const { engine, http } = engineFor({
      url,
      dataDir,
      clock,
      registry,
      maxSocketsPerOrigin: 4,
      concurrency: { express: 1, standard: 1 },
    });
    const retryClock = async () =>
      (await registry.getSingleMetric('webhook_retry_clock_seconds')!.get()).values[0]?.value;
    try {
      // Its own timer would look only in an hour: a retry sent now is the clock's move at work.
      engine.startRetries(60 * 60_000);
      engine.enqueue([standardJob(clock)]);
      await waitFor(() => received.length === 1, { what: 'the first attempt' });
      await engine.idle();
      expect(engine.backlog).toBe(1);

      clock.advance(60 * 60_000);
      await waitFor(() => received.length === 2, { what: 'the retry, once the clock moved past it' });
      await waitFor(async () => (await retryClock()) === clock.now().getTime() / 1000, {
        what: 'webhook_retry_clock_seconds at the moved clock',
      });
      expect(received).toEqual([503, 200]);
      expect(engine.backlog).toBe(0);
    } finally {
      await closeAll({ engine, http, server, dataDir });
    }
  });
});

describe('delivery engine: an outcome and its time', () => {
  it("tells the subscription of a failed attempt at the attempt's own time (failing since its first failure)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cip-engine-'));
    const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(500).end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const clock = new TickingClock();
    const reported: { outcome: string; at: string }[] = [];
    const { engine, http } = engineFor({
      url,
      dataDir,
      clock,
      registry: new Registry(),
      maxSocketsPerOrigin: 4,
      concurrency: { express: 1, standard: 1 },
      reportOutcome: async (_environment, _entry, outcome, at) => {
        reported.push({ outcome, at: at.toISOString() });
      },
    });
    try {
      const job = standardJob(clock);
      engine.enqueue([job]);
      await waitFor(() => reported.length === 1, { what: 'the outcome reported' });
      const [attempt] = job.delivery.attempts as { at: string }[];
      // The delivery log's attempt, its retry and the subscription's failing-since: one reading of the clock.
      expect(reported).toEqual([{ outcome: 'failed', at: attempt.at }]);
      expect(Date.parse(job.delivery.nextAttemptAt!)).toBeGreaterThan(Date.parse(attempt.at));
    } finally {
      await closeAll({ engine, http, server, dataDir });
    }
  });
});
