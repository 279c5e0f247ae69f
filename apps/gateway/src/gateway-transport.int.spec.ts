import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DistributorsService } from '@cip/distributors/service';
import { eventsContext } from '@cip/events/service';
import { createHttpApp } from '@cip/gateway/http';
import { serviceClients } from '@cip/platform/composition';
import { Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { createLogger, PlatformMetrics } from '@cip/shared/runtime';
import { contextServiceModule } from '@cip/shared/transport';
import { usersContext } from '@cip/users/service';
import { GatewayModule } from './gateway.module';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';

const SANDBOX_KEY = 'sk_sandbox_transportIntTestKeyAAAAAAAAAAAAA';
const RESET_TIMEOUT_MS = 2_000;
const logger = createLogger('silent');

/**
 * Both apps share one embedded infrastructure, owned by the test: stopping the users service must not
 * close the stores under the gateway.
 */
const borrowed = (infrastructure: Infrastructure): Infrastructure => ({
  driver: infrastructure.driver,
  leases: infrastructure.leases,
  scope: (scope) => infrastructure.scope(scope),
  close: async () => undefined,
});

const infrastructureOf = (infrastructure: Infrastructure, runConsumers: boolean) => ({
  open: () => borrowed(infrastructure),
  runConsumers,
  logger,
  metrics: new PlatformMetrics(false),
});

/** The users service as apps/users composes it, on the embedded driver instead of the servers. */
const usersServiceModule = (infrastructure: Infrastructure) =>
  contextServiceModule({
    infrastructure: infrastructureOf(infrastructure, true),
    contexts: [usersContext, eventsContext],
  });

/**
 * The gateway as apps/gateway composes it: every contract a TCP client of its service, and no consumers. Every
 * service's address is the users service's here (it also serves the events contract of the webhooks service).
 */
const gatewayModule = (infrastructure: Infrastructure, usersPort: number) =>
  GatewayModule.forRoot({
    infrastructure: infrastructureOf(infrastructure, false),
    services: serviceClients(null, {}).map((service) => ({
      ...service,
      host: '127.0.0.1',
      port: usersPort,
      resetTimeoutMs: RESET_TIMEOUT_MS,
    })),
  });

async function startUsersService(infrastructure: Infrastructure, port: number): Promise<INestMicroservice> {
  const service = await NestFactory.createMicroservice<MicroserviceOptions>(
    usersServiceModule(infrastructure),
    { transport: Transport.TCP, options: { host: '127.0.0.1', port }, logger: false },
  );
  await service.listen();
  return service;
}

const portOf = (service: INestMicroservice) => (service.unwrap<Server>().address() as AddressInfo).port;

describe('gateway -> users service over TCP, behind the circuit breaker', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-transport-'));
  const infrastructure = openEmbeddedInfrastructure({ dataDir, pollIntervalMs: 20 });
  let usersService: INestMicroservice | null = null;
  let usersPort: number;
  let gateway: NestFastifyApplication;
  const json = { 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' };
  const http = () => request(gateway.getHttpServer());
  const newUser = (overrides: Record<string, unknown> = {}) => ({
    email: `user-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryOfResidence: 'FR',
    ...overrides,
  });

  beforeAll(async () => {
    usersService = await startUsersService(infrastructure, 0);
    usersPort = portOf(usersService);
    gateway = await createHttpApp(gatewayModule(infrastructure, usersPort), {
      logger,
      rateLimit: { ratePerSecond: 100_000, burst: 100_000 },
    });
    // Fastify finishes registering routes and hooks on `ready`, which `listen` would otherwise call.
    await gateway.getHttpAdapter().getInstance().ready();
    await gateway.get(DistributorsService).bootstrap({ sandboxKey: SANDBOX_KEY });
  });

  afterAll(async () => {
    await gateway?.close();
    await usersService?.close();
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let userId: string;
  let email: string;

  it('creates a user through the service and reads it back', async () => {
    const body = newUser();
    const created = await http().post('/v1/users').set(json).send(body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: body.email, countryOfResidence: 'FR', status: 'onboarding' });
    expect(created.headers.location).toBe(`/v1/users/${created.body.id}`);
    userId = created.body.id;
    email = body.email;

    const read = await http().get(`/v1/users/${userId}`).set(json);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const listed = await http().get('/v1/users').query({ email }).set(json);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ count: 1, items: [created.body] });
  });

  it("answers a rule violation raised in the service with the service's own code", async () => {
    const duplicate = await http().post('/v1/users').set(json).send(newUser({ email }));
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('duplicate_user_error');

    const outside = await http()
      .post('/v1/users')
      .set(json)
      .send(newUser({ countryOfResidence: 'US' }));
    expect(outside.status).toBe(422);
    expect(outside.body.error.code).toBe('country_not_allowed');

    const missing = await http().get('/v1/users/usr-00000000-0000-4000-8000-000000000000').set(json);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');

    // Rule violations are the service working: however many in a row, they never open the breaker.
    for (let i = 0; i < 6; i++) {
      expect((await http().post('/v1/users').set(json).send(newUser({ email }))).status).toBe(409);
    }
    expect((await http().get(`/v1/users/${userId}`).set(json)).status).toBe(200);
  });

  it('answers 503 at once when the service is down, then fails fast until it is back', async () => {
    await usersService?.close();
    usersService = null;

    // The first calls find nobody listening: 503, well within the 5 s command timeout.
    const startedAt = Date.now();
    const down = await http().get(`/v1/users/${userId}`).set(json);
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('service_unavailable');
    expect(Date.now() - startedAt).toBeLessThan(1_000);

    // Failures open the breaker once they are over half of the calls of its 10 s window, where the dozen
    // successes and rule violations above count as healthy calls.
    for (let i = 0; i < 25; i++) {
      expect((await http().get(`/v1/users/${userId}`).set(json)).status).toBe(503);
    }
    // The gateway stays ready (its other services still answer) and reports the open breaker.
    const health = await http().get('/health').expect(200);
    expect(health.body.checks['breaker:users']).toMatchObject({ ready: true, breaker: 'open' });

    // Open means the gateway no longer even tries: the service is back, yet calls still fail at once...
    usersService = await startUsersService(infrastructure, usersPort);
    const whileOpen = await http().get(`/v1/users/${userId}`).set(json);
    expect(whileOpen.status).toBe(503);
    expect(whileOpen.body.error.code).toBe('service_unavailable');

    // ...until the reset timeout lets a trial call through, which closes the breaker again.
    await new Promise((resolve) => setTimeout(resolve, RESET_TIMEOUT_MS + 100));
    const recovered = await http().get(`/v1/users/${userId}`).set(json);
    expect(recovered.status).toBe(200);
    expect(recovered.body.id).toBe(userId);
    expect((await http().post('/v1/users').set(json).send(newUser())).status).toBe(201);
  });
});
