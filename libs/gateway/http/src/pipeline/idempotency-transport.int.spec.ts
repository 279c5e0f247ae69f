import type { Principal } from '@cip/distributors/service';
import { defineContext, DomainError, type Caller } from '@cip/shared/contracts';
import { SqliteEventStore } from '@cip/shared/eventing';
import { INFRASTRUCTURE, LOGGER, type Infrastructure } from '@cip/shared/infrastructure';
import { SqliteIdempotencyStore } from '@cip/shared/read-store';
import { createLogger, freePort, openSqliteDatabase, type SqliteDatabase } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import {
  contextClient,
  contextMessageController,
  ServiceClient,
  ServiceConnections,
} from '@cip/shared/transport';
import { INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClientTCP, MicroserviceOptions, Transport } from '@nestjs/microservices';
import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerError } from './error-responses';
import './gateway-pipeline';
import { IDEMPOTENCY_LEASE_MS, installIdempotency } from './idempotency.hook';

const logger = createLogger('silent');

/** A context of one command, creating a thing: it waits for the test's go before appending its event. */
interface ThingsApi {
  createThing(caller: Caller, name: string): Promise<{ id: string }>;
  /** Appends, then fails as a call of its own to another service that was never sent. */
  createThingElsewhere(caller: Caller, name: string): Promise<{ id: string }>;
}
const THINGS = defineContext<ThingsApi>({
  name: 'things',
  token: Symbol('THINGS'),
  methods: { createThing: ['caller', 'name'], createThingElsewhere: ['caller', 'name'] },
});

const program = { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false };

/**
 * The split topology in small, over real TCP: a service process (a Nest TCP microservice on the SQLite file,
 * appending the command's events and hosting its run, `hostRun`) and a gateway (the idempotency hook, the
 * exception filter's answer, a ServiceClient with a short command timeout) holding the claims in the same file.
 */
describe('a keyed request whose command outlives the gateway command timeout (real TCP transport)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-idem-transport-'));
  const file = join(dir, 'sandbox.sqlite');
  let serviceDb: SqliteDatabase;
  let gatewayDb: SqliteDatabase;
  let events: SqliteEventStore;
  let service: INestMicroservice;
  let servicePort: number;
  /** The port the gateway's connections open (a dead one plays a service down). */
  let dialPort: number;
  /** The gateway's client of the service, new for each test (a breaker one test opened stays out of the next). */
  let client: ServiceClient;
  let things$: ThingsApi;
  let gateway: FastifyInstance;
  let now = Date.UTC(2026, 0, 1);
  /** Things created by the service, and the runs still waiting for the test's go. */
  const things: string[] = [];
  const waiting: (() => void)[] = [];
  let holdRuns = false;

  beforeAll(async () => {
    serviceDb = openSqliteDatabase(file);
    gatewayDb = openSqliteDatabase(file);
    events = new SqliteEventStore(serviceDb, { name: 'things' });
    const serviceStore = new SqliteIdempotencyStore(serviceDb, {
      commitAlongside: (write) => events.commitAlongside(write),
      witnessAppends: (witness) => events.witnessAppends(witness),
    });
    const api: ThingsApi = {
      async createThingElsewhere(caller, name) {
        await api.createThing(caller, name);
        throw new DomainError(
          'service_unavailable',
          'The other service is unavailable',
          undefined,
          'not_run',
        );
      },
      async createThing(caller, name) {
        if (holdRuns) await new Promise<void>((go) => waiting.push(go));
        const id = `thg-${randomUUID()}`;
        await events.append(id, [
          {
            type: 'ThingCreated',
            data: { name },
            metadata: {
              eventId: randomUUID(),
              occurredAt: new Date().toISOString(),
              correlationId: caller.requestId,
              schemaVersion: 1,
            },
          },
        ]);
        things.push(id);
        return { id };
      },
    };
    const infrastructure = { scope: () => ({ idempotency: serviceStore }) } as unknown as Infrastructure;
    @Module({
      controllers: [contextMessageController(THINGS)],
      providers: [
        { provide: THINGS.token, useValue: api },
        { provide: INFRASTRUCTURE, useValue: infrastructure },
        { provide: LOGGER, useValue: logger },
      ],
    })
    class ThingsServiceModule {}
    service = await NestFactory.createMicroservice<MicroserviceOptions>(ThingsServiceModule, {
      transport: Transport.TCP,
      options: { host: '127.0.0.1', port: 0 },
      logger: false,
    });
    await service.listen();
    servicePort = (service.unwrap<Server>().address() as AddressInfo).port;
    dialPort = servicePort;

    const gatewayStore = new SqliteIdempotencyStore(gatewayDb);
    gateway = Fastify();
    gateway.addHook('onRequest', async (request) => {
      request.principal = { distributorId: 'dst-a', environment: 'sandbox' } as Principal;
    });
    installIdempotency(gateway, {
      infrastructure: { scope: () => ({ idempotency: gatewayStore }) } as unknown as Infrastructure,
      clock: { now: () => new Date(now) },
      logger,
    });
    gateway.setErrorHandler((error, request, reply) => answerError(request, reply, error, logger));
    gateway.post('/v1/things/:where', async (request, reply) => {
      const caller: Caller = {
        distributorId: 'dst-a',
        environment: 'sandbox',
        program,
        requestId: request.id,
        ...(request.idempotentRun && { idempotency: request.idempotentRun }),
      };
      const { name } = request.body as { name: string };
      const thing =
        (request.params as { where: string }).where === 'elsewhere'
          ? await things$.createThingElsewhere(caller, name)
          : await things$.createThing(caller, name);
      return reply.code(201).header('location', `/v1/things/${thing.id}`).send(thing);
    });
  });

  afterAll(async () => {
    waiting.splice(0).forEach((go) => go());
    await gateway?.close();
    await service?.close();
    await events?.close();
    serviceDb?.close();
    gatewayDb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    client = new ServiceClient(
      'things',
      // A new connection per command, so that each dials the port of the moment.
      new ServiceConnections(() => new ClientTCP({ host: '127.0.0.1', port: dialPort }), {
        connections: 1,
        maxCommandsPerConnection: 1,
      }),
      logger,
      // Short, as the commands held by the service time out; not so short that a loaded machine's answer
      // to a command that is not held comes too late.
      { timeoutMs: 1_000 },
    );
    things$ = contextClient(THINGS, client);
  });

  afterEach(() => {
    client.shutdown();
    holdRuns = false;
    dialPort = servicePort;
  });

  const post = async (key: string, where = 'here') => {
    const response = await gateway.inject({
      method: 'POST',
      url: `/v1/things/${where}`,
      headers: { 'x-idempotency-key': key },
      payload: { name: 'a thing' },
    });
    const body = response.json() as { id?: string; error?: { code: string } };
    return {
      status: response.statusCode,
      code: body.error?.code,
      id: body.id,
      replayed: response.headers['x-idempotent-replayed'],
    };
  };
  const goAndWait = async (count: number) => {
    waiting.splice(0).forEach((go) => go());
    await waitFor(() => things.length === count, { what: `the service to have created ${count} things` });
  };

  it('times out at the gateway while the service completes it: the retry never replays 503 nor creates again', async () => {
    things.length = 0;
    const key = `k-${randomUUID()}`;
    holdRuns = true;
    expect(await post(key)).toMatchObject({ status: 503, code: 'service_unavailable' });
    // Still running in the service: the claim is in flight.
    expect(await post(key)).toMatchObject({ status: 409, code: 'idempotency_request_in_progress' });
    await goAndWait(1);
    expect(await post(key)).toMatchObject({ status: 409, code: 'idempotency_request_in_progress' });
    // Past the claim's lease (the state a gateway crash leaves): the service wrote its run with the events.
    now += IDEMPOTENCY_LEASE_MS + 1;
    expect(await post(key)).toMatchObject({ status: 409, code: 'idempotency_outcome_lost' });
    expect(await post(key)).toMatchObject({ status: 409, code: 'idempotency_outcome_lost' });
    expect(things).toHaveLength(1);
  });

  it('retried past the lease while the service still runs it: in progress, then outcome lost, never a second run', async () => {
    things.length = 0;
    const key = `k-${randomUUID()}`;
    holdRuns = true;
    expect(await post(key)).toMatchObject({ status: 503, code: 'service_unavailable' });
    now += IDEMPOTENCY_LEASE_MS + 1;
    // The gateway's claim lapsed; the service refuses a second run of the claim while the first still runs.
    expect(await post(key)).toMatchObject({ status: 409, code: 'idempotency_request_in_progress' });
    await goAndWait(1);
    expect(await post(key)).toMatchObject({ status: 409, code: 'idempotency_outcome_lost' });
    expect(things).toHaveLength(1);
  });

  it("a service's call of its own never sent, after the service appended: not known either, never run again", async () => {
    things.length = 0;
    const key = `k-${randomUUID()}`;
    expect(await post(key, 'elsewhere')).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(await post(key, 'elsewhere')).toMatchObject({
      status: 409,
      code: 'idempotency_request_in_progress',
    });
    now += IDEMPOTENCY_LEASE_MS + 1;
    expect(await post(key, 'elsewhere')).toMatchObject({ status: 409, code: 'idempotency_outcome_lost' });
    expect(things).toHaveLength(1);
  });

  it('a command never sent (the service refuses connections): not stored, the retry creates it once', async () => {
    things.length = 0;
    const key = `k-${randomUUID()}`;
    dialPort = await freePort();
    expect(await post(key)).toMatchObject({ status: 503, code: 'service_unavailable' });
    dialPort = servicePort;
    const created = await post(key);
    expect(created).toMatchObject({ status: 201, replayed: undefined });
    expect(await post(key)).toEqual({ ...created, replayed: 'true' });
    expect(things).toEqual([created.id]);
  });
});
