import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { EventData, RecordedEvent } from '@cip/shared/eventing';
import { KafkaRelay, type KafkaMessageBus } from '@cip/shared/eventing/distributed';
import {
  type Infrastructure,
  InfrastructureModule,
  openEmbeddedInfrastructure,
  STORE_SCOPES,
} from '@cip/shared/infrastructure';
import { type DistributedInfrastructure, RelayModule } from '@cip/shared/infrastructure/distributed';
import { createLogger, PlatformMetrics } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import { serviceAppModule } from '@cip/shared/transport';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';

// The relay as apps/relay composes it (RelayModule on the app template, SystemController's /health and
// /metrics), on the embedded stores with Kafka played by a producer that fails while `down`: what an
// operator probing the relay sees when Kafka goes away and comes back.
const kafka = { down: false, produced: [] as RecordedEvent[] };
const fakeBus = {
  checkPartitions: async () => undefined,
  publishRecorded: async (events: RecordedEvent[]) => {
    if (kafka.down) throw Object.assign(new Error('broker unreachable'), { code: 'ECONNREFUSED' });
    kafka.produced.push(...events);
  },
} as unknown as KafkaMessageBus;

/** The distributed infrastructure's relays (one per scope) over the embedded stores. */
function relayingStores(dataDir: string): DistributedInfrastructure {
  const stores = openEmbeddedInfrastructure({ dataDir, pollIntervalMs: 20 });
  const relays: KafkaRelay[] = [];
  return {
    ...stores,
    driver: 'distributed',
    scope: (scope) => stores.scope(scope),
    startRelays: async () => {
      for (const scope of STORE_SCOPES) {
        const relay = new KafkaRelay({ store: stores.scope(scope).storedEventStore, bus: fakeBus });
        await relay.start();
        relays.push(relay);
      }
      return [...relays];
    },
    close: async () => {
      for (const relay of relays) await relay.stop();
      await stores.close();
    },
  };
}

const event = (type: string): EventData => ({
  type,
  data: {},
  metadata: { eventId: `${type}-${Math.random()}`, occurredAt: new Date().toISOString(), schemaVersion: 1 },
});

async function relayApp(infrastructure: Infrastructure): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    serviceAppModule([
      InfrastructureModule.forRoot({
        open: () => infrastructure,
        runConsumers: false,
        metrics: new PlatformMetrics(false),
        logger: createLogger('silent'),
      }),
      RelayModule,
    ]),
    new FastifyAdapter(),
    { logger: false, abortOnError: false },
  );
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

describe('the relay app: /health reports each relay loop and its lag, /metrics its position', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-relay-app-'));
  const infrastructure = relayingStores(dataDir);
  let app: NestFastifyApplication;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await relayApp(infrastructure);
  });

  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is ready with every store and relay loop running, and counts the produced log in relay_position', async () => {
    await infrastructure.scope('sandbox').eventStore.append('usr-1', [event('UserCreated')]);
    await waitFor(() => kafka.produced.length === 1, { what: 'the sandbox relay to produce the event' });
    const health = await http().get('/health').expect(200);
    expect(health.body).toMatchObject({ status: 'ok', notReady: [] });
    for (const scope of STORE_SCOPES) {
      expect(health.body.checks[`relay:${scope}`]).toMatchObject({ ready: true, state: 'running' });
      expect(health.body.checks[`store:${scope}`]).toMatchObject({ ready: true });
    }
    const metrics = await http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(/relay_position\{scope="sandbox"\} [1-9]/);
    await http().get('/health/live').expect(200);
  });

  // The relay backs off up to 3.2 s between attempts: five failures and a retry take about 6 s.
  it('is unavailable while a relay loop is stuck retrying, naming it with its lag, and ready once it caught up', async () => {
    kafka.down = true;
    await infrastructure
      .scope('sandbox')
      .eventStore.append('usr-2', [event('UserCreated'), event('UserActivated')]);
    await waitFor(async () => (await http().get('/health')).status === 503, {
      what: '/health to answer 503 while Kafka is down',
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    const unavailable = await http().get('/health').expect(503);
    expect(unavailable.body).toMatchObject({ status: 'unavailable', notReady: ['relay:sandbox'] });
    expect(unavailable.body.checks['relay:sandbox']).toMatchObject({
      ready: false,
      state: 'retrying',
      lagEvents: 2,
    });

    kafka.down = false;
    await waitFor(async () => (await http().get('/health')).status === 200, {
      what: '/health to answer 200 once Kafka is back',
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    const health = await http().get('/health').expect(200);
    expect(health.body.checks['relay:sandbox']).toMatchObject({ ready: true, lagEvents: 0 });
  }, 45_000);

  it('refuses to start on stores that have no relays (the embedded driver)', async () => {
    const embeddedDir = mkdtempSync(join(tmpdir(), 'cip-relay-embedded-'));
    const embedded = openEmbeddedInfrastructure({ dataDir: embeddedDir });
    try {
      await expect(relayApp(embedded)).rejects.toThrow(
        'The relay runs on a server driver only, postgres or distributed (got embedded)',
      );
    } finally {
      await embedded.close();
      rmSync(embeddedDir, { recursive: true, force: true });
    }
  });
});
