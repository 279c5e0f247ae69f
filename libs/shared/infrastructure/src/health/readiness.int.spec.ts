import { Inject, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { waitFor } from '@cip/shared/testing';
import type { ReadStore } from '@cip/shared/read-store';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ConsumerHost } from '../consumers';
import { openEmbeddedInfrastructure } from '../embedded-infrastructure';
import { Infrastructure, INFRASTRUCTURE, ScopePorts, StoreScope } from '../infrastructure';
import { InfrastructureModule } from '../infrastructure.module';
import { SystemController } from '../system.controller';

/** What the test flips: a consumer handler that fails while `failing`, a read store that throws while `broken`. */
const faults = { failing: false, brokenScope: null as StoreScope | null };

@Injectable()
class ProbeConsumer {
  constructor(@Inject(ConsumerHost) consumers: ConsumerHost) {
    consumers.register({
      group: 'probe-recorder',
      topics: ['probe'],
      scopes: ['sandbox'],
      handle: async () => {
        if (faults.failing) throw new Error('the probe recorder cannot write');
      },
    });
  }
}

@Module({ providers: [ProbeConsumer] })
class ProbeModule {}

/** The embedded infrastructure, with a read store that fails its reads in the broken scope. */
function withBreakableReadStore(infrastructure: Infrastructure): Infrastructure {
  return {
    ...infrastructure,
    driver: infrastructure.driver,
    scope: (scope) => {
      const ports = infrastructure.scope(scope);
      if (faults.brokenScope !== scope) return ports;
      const readStore: ReadStore = {
        ...ports.readStore,
        get: () => Promise.reject(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })),
      } as ReadStore;
      return { ...ports, readStore } as ScopePorts;
    },
  };
}

describe('/health: readiness of the process dependencies', () => {
  let dataDir: string;
  let app: NestFastifyApplication;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-readiness-'));
    app = await NestFactory.create<NestFastifyApplication>(
      {
        module: class ReadinessTestModule {},
        imports: [
          InfrastructureModule.forRoot({
            open: () => withBreakableReadStore(openEmbeddedInfrastructure({ dataDir, pollIntervalMs: 20 })),
            runConsumers: true,
          }),
          ProbeModule,
        ],
        controllers: [SystemController],
      },
      new FastifyAdapter(),
      { logger: false },
    );
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(() => {
    faults.failing = false;
    faults.brokenScope = null;
  });

  const appendProbe = async (n: number) => {
    const store = app.get<Infrastructure>(INFRASTRUCTURE).scope('sandbox').storedEventStore;
    await store.append(`probe-${n}`, [
      {
        type: 'ProbeHappened',
        data: { n },
        metadata: { eventId: `evt-${n}`, occurredAt: new Date().toISOString(), schemaVersion: 1 },
      },
    ]);
  };

  it('answers 200 with every store scope and consumer group checked', async () => {
    const { body } = await http().get('/health').expect(200);
    expect(body).toMatchObject({ status: 'ok', notReady: [] });
    expect(Object.keys(body.checks)).toEqual(
      expect.arrayContaining([
        'store:control',
        'store:sandbox',
        'store:production',
        'consumer:sandbox/probe-recorder',
      ]),
    );
  });

  it('answers 503 naming a consumer group whose handler keeps failing, and 200 once it recovers', async () => {
    faults.failing = true;
    await appendProbe(1);
    let body: { notReady?: string[]; checks?: Record<string, { state?: string }> } = {};
    await waitFor(
      async () => {
        const response = await http().get('/health');
        body = response.body;
        return response.status === 503;
      },
      { what: '/health to answer 503 while the probe recorder fails', timeoutMs: 15_000, intervalMs: 50 },
    );
    expect(body.notReady).toEqual(['consumer:sandbox/probe-recorder']);
    expect(body.checks?.['consumer:sandbox/probe-recorder']).toMatchObject({
      ready: false,
      state: 'failing',
    });
    // Liveness stays up: restarting the process would not fix the handler.
    await http().get('/health/live').expect(200);

    faults.failing = false;
    await waitFor(async () => (await http().get('/health')).status === 200, {
      what: '/health to answer 200 once the probe recorder handles its batch',
      timeoutMs: 15_000,
      intervalMs: 50,
    });
  });

  it('answers 503 naming a store scope that cannot be read', async () => {
    faults.brokenScope = 'production';
    const { body } = await http().get('/health').expect(503);
    expect(body).toMatchObject({
      status: 'unavailable',
      notReady: ['store:production'],
      checks: { 'store:production': { ready: false, readStore: 'SQLITE_IOERR' } },
    });
    // No error message on an endpoint open without a key: the logs have it.
    expect(JSON.stringify(body)).not.toContain('disk I/O error');
    faults.brokenScope = null;
    await http().get('/health').expect(200);
  });
});
