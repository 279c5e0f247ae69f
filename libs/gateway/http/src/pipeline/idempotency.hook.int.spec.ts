import type { Principal } from '@cip/distributors/service';
import { DomainError, type CommandFate } from '@cip/shared/contracts';
import { SqliteIdempotencyStore } from '@cip/shared/read-store';
import type { Infrastructure } from '@cip/shared/infrastructure';
import { openSqliteDatabase, type Logger } from '@cip/shared/runtime';
import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerError } from './error-responses';
import './gateway-pipeline';
import { IDEMPOTENCY_LEASE_MS, installIdempotency } from './idempotency.hook';

const logger = { warn: () => undefined, error: () => undefined } as unknown as Logger;

/**
 * The hook with what the gateway's exception filter does (`answerError`) and one route whose command's
 * answers the test picks in turn: a value is the command's 201, an error is thrown as the transport would.
 */
function gatewayOf(idempotency: SqliteIdempotencyStore) {
  const infrastructure = { scope: () => ({ idempotency }) } as unknown as Infrastructure;
  let now = Date.UTC(2026, 0, 1);
  const clock = { now: () => new Date(now) };
  const fastify: FastifyInstance = Fastify();
  fastify.addHook('onRequest', async (request) => {
    request.principal = { distributorId: 'dst-a', environment: 'sandbox' } as Principal;
  });
  installIdempotency(fastify, { infrastructure, clock, logger });
  fastify.setErrorHandler((error, request, reply) => answerError(request, reply, error, logger));
  const answers: (DomainError | { id: string })[] = [];
  const runs: string[] = [];
  fastify.post('/v1/cards', async (request, reply) => {
    // What the controller's Caller hands to the service: the claim's run.
    runs.push(request.idempotentRun?.run ?? 'none');
    const answer = answers.shift();
    if (!answer) throw new Error('no answer left for this call');
    if (answer instanceof DomainError) throw answer;
    return reply.code(201).header('location', `/v1/cards/${answer.id}`).send(answer);
  });
  // Each test its own keys: the tests share the store's file.
  const prefix = randomUUID().slice(0, 8);
  const post = async (key = 'k-1') => {
    const response = await fastify.inject({
      method: 'POST',
      url: '/v1/cards',
      headers: { 'x-idempotency-key': `${prefix}-${key}` },
      payload: {},
    });
    return {
      status: response.statusCode,
      code:
        response.statusCode >= 400 ? (response.json() as { error: { code: string } }).error.code : undefined,
      replayed: response.headers['x-idempotent-replayed'],
    };
  };
  return {
    fastify,
    answers,
    runs,
    post,
    /** Moves the gateway's clock past the lease of a claim made now. */
    passLease: () => (now += IDEMPOTENCY_LEASE_MS + 1),
  };
}

const unavailable = (fate?: CommandFate) =>
  new DomainError('service_unavailable', 'The cards service is unavailable; retry later', undefined, fate);

describe('idempotency hook: answers that are not the outcome of the command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-idem-hook-'));
  const db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
  let gateway: ReturnType<typeof gatewayOf>;
  beforeEach(() => {
    gateway = gatewayOf(new SqliteIdempotencyStore(db));
  });
  afterEach(() => gateway.fastify.close());
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a service still running an earlier run of the claim: not stored, the claim is given up, a retry runs', async () => {
    gateway.answers.push(
      new DomainError('idempotency_request_in_progress', 'still running', undefined, 'not_run'),
      { id: 'crd-1' },
    );
    expect(await gateway.post()).toMatchObject({ status: 409, code: 'idempotency_request_in_progress' });
    expect(await gateway.post()).toEqual({ status: 201, code: undefined, replayed: undefined });
    expect(await gateway.post()).toEqual({ status: 201, code: undefined, replayed: 'true' });
    // Each run of the claim its own, so a service tells a retry from the run it retries.
    expect(gateway.runs).toHaveLength(2);
    expect(new Set(gateway.runs).size).toBe(2);
    expect(gateway.runs).not.toContain('none');
  });

  it('a 503 of a command never sent (breaker open, connection refused): not stored, the retry runs at once', async () => {
    gateway.answers.push(unavailable('not_run'), { id: 'crd-1' });
    expect(await gateway.post()).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(await gateway.post()).toEqual({ status: 201, code: undefined, replayed: undefined });
    expect(await gateway.post()).toEqual({ status: 201, code: undefined, replayed: 'true' });
  });

  it('a 503 of a command sent and unanswered: not stored; in progress until the lease passes, then run again', async () => {
    // Nothing recorded that it ran (no mark in the store): after the lease, the retry runs it.
    gateway.answers.push(unavailable('unknown'), { id: 'crd-1' });
    expect(await gateway.post()).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(await gateway.post()).toMatchObject({ status: 409, code: 'idempotency_request_in_progress' });
    expect(gateway.runs).toHaveLength(1);
    gateway.passLease();
    expect(await gateway.post()).toEqual({ status: 201, code: undefined, replayed: undefined });
    expect(await gateway.post()).toEqual({ status: 201, code: undefined, replayed: 'true' });
    expect(gateway.runs).toHaveLength(2);
  });

  it("errors a service decided are the outcome: stored and replayed, 4xx and the service's own 5xx alike", async () => {
    gateway.answers.push(
      new DomainError('user_not_active', 'User usr-1 is suspended'),
      new DomainError('service_unavailable', 'Card issuing is not configured in sandbox: no BIN'),
      new DomainError('internal_error', 'The service failed to handle the request'),
    );
    const cases: [string, number, string][] = [
      ['k-4xx', 409, 'user_not_active'],
      ['k-503', 503, 'service_unavailable'],
      ['k-500', 500, 'internal_error'],
    ];
    for (const [key, status, code] of cases) {
      expect(await gateway.post(key)).toEqual({ status, code, replayed: undefined });
      expect(await gateway.post(key)).toEqual({ status, code, replayed: 'true' });
    }
    expect(gateway.runs).toHaveLength(3);
  });
});
