import type { Principal } from '@cip/distributors/service';
import { SqliteIdempotencyStore } from '@cip/shared/read-store';
import type { Infrastructure } from '@cip/shared/infrastructure';
import { openSqliteDatabase, systemClock, type Logger } from '@cip/shared/runtime';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorBody } from './error-responses';
import './gateway-pipeline';
import { installIdempotency } from './idempotency.hook';

describe('idempotency hook: the answer of a service still running an earlier run of the claim', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-idem-hook-'));
  const db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is not stored as the outcome: the claim is given up, and a retry runs once that run is over', async () => {
    const idempotency = new SqliteIdempotencyStore(db);
    const infrastructure = { scope: () => ({ idempotency }) } as unknown as Infrastructure;
    const logger = { warn: () => undefined } as unknown as Logger;
    const fastify = Fastify();
    fastify.addHook('onRequest', async (request) => {
      request.principal = { distributorId: 'dst-a', environment: 'sandbox' } as Principal;
    });
    installIdempotency(fastify, { infrastructure, clock: systemClock, logger });
    const runs: string[] = [];
    let firstRunStillGoing = true;
    fastify.post('/v1/cards', async (request, reply) => {
      // What the controller's Caller hands to the service: the claim's run.
      runs.push(request.idempotentRun?.run ?? 'none');
      if (firstRunStillGoing) {
        return reply
          .code(409)
          .send(errorBody('idempotency_request_in_progress', 'still running', request.id));
      }
      return reply.code(201).send({ id: 'crd-1' });
    });
    const post = () =>
      fastify.inject({
        method: 'POST',
        url: '/v1/cards',
        headers: { 'x-idempotency-key': 'k-1' },
        payload: {},
      });
    try {
      expect((await post()).statusCode).toBe(409);
      firstRunStillGoing = false;
      const retried = await post();
      expect({ status: retried.statusCode, replayed: retried.headers['x-idempotent-replayed'] }).toEqual({
        status: 201,
        replayed: undefined,
      });
      const replayed = await post();
      expect({ status: replayed.statusCode, replayed: replayed.headers['x-idempotent-replayed'] }).toEqual({
        status: 201,
        replayed: 'true',
      });
      // Each run of the claim its own, so a service tells a retry from the run it retries.
      expect(runs).toHaveLength(2);
      expect(new Set(runs).size).toBe(2);
      expect(runs).not.toContain('none');
    } finally {
      await fastify.close();
    }
  });
});
