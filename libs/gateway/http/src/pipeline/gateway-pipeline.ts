import type { Principal } from '@cip/distributors/service';
import { ENVIRONMENTS } from '@cip/shared/contracts';
import type { Infrastructure } from '@cip/shared/infrastructure';
import type { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { sendError } from './error-responses';
import { RateLimiter } from './rate-limiter';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller of a /v1 request. */
    principal?: Principal;
    /** Identity of an idempotent request that claimed its key and must store its outcome. */
    idempotencyIdentity?: string;
    startedAt?: bigint;
  }
}

export interface GatewayPipelineOptions {
  authenticate(apiKey: string): Promise<Principal | null>;
  infrastructure: Infrastructure;
  clock: Clock;
  metrics: PlatformMetrics;
  logger: Logger;
  rateLimit: { ratePerSecond: number; burst: number };
}

/** Idempotency (spec part 4): retention of outcomes, and the lease of an in-flight claim. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_LEASE_MS = 60_000;
const IDEMPOTENCY_PURGE_EVERY_MS = 15 * 60_000;
const IDEMPOTENCY_KEY_MAX = 64;
/** Response headers worth replaying; the others describe the transport, not the outcome. */
const REPLAYED_HEADERS = ['content-type', 'location'];
const PUBLIC_PATHS = new Set(['/v1/openapi.json']);

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A caller-supplied request id is kept when it is sane, so logs can be joined across systems. */
export function requestIdOf(header: string | string[] | undefined, generated: () => string): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : generated();
}

/** Stable JSON: object keys sorted, so that the same body always yields the same identity. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The five-part identity of spec part 4 (key, path, method, query, body), scoped to the caller's
 * distributor and environment so one tenant can never replay another's outcome.
 */
function idempotencyIdentity(request: FastifyRequest, key: string, principal: Principal): string {
  const [path, query = ''] = request.url.split('?', 2);
  const sortedQuery = new URLSearchParams(query);
  sortedQuery.sort();
  return createHash('sha256')
    .update(
      [
        principal.distributorId,
        principal.environment,
        key,
        request.method,
        path,
        sortedQuery.toString(),
        canonical(request.body ?? null),
      ].join('\u0000'),
    )
    .digest('hex');
}

/**
 * The request pipeline of /v1, as Fastify hooks so that it also covers requests that never reach a
 * controller: request id on every response, API-key authentication, per-key rate limit, idempotency
 * (claim before the handler, store the outcome as sent), one log line and one latency observation.
 */
export function installGatewayPipeline(fastify: FastifyInstance, options: GatewayPipelineOptions): void {
  const limiter = new RateLimiter(options.rateLimit.ratePerSecond, options.rateLimit.burst);

  fastify.addHook('onRequest', async (request, reply) => {
    request.startedAt = process.hrtime.bigint();
    reply.header('x-request-id', request.id);
    const path = request.url.split('?', 1)[0];
    if (!path.startsWith('/v1/') || PUBLIC_PATHS.has(path) || path.startsWith('/v1/docs')) return;

    const apiKey = request.headers['x-api-key'];
    if (typeof apiKey !== 'string' || apiKey.length === 0) {
      return sendError(request, reply, 'unauthorized', 'Send your API key in the x-api-key header');
    }
    const principal = apiKey.length <= 200 ? await options.authenticate(apiKey) : null;
    if (!principal) return sendError(request, reply, 'unauthorized', 'The API key is not valid');
    request.principal = principal;

    const taken = limiter.take(principal.keyId, options.clock.now().getTime());
    reply.header('ratelimit-limit', String(limiter.burst));
    if (!taken.allowed) {
      return sendError(
        request,
        reply,
        'rate_limited',
        'Too many requests for this API key; retry later',
        undefined,
        {
          'retry-after': String(taken.retryAfterSeconds),
          'ratelimit-remaining': '0',
        },
      );
    }
    reply.header('ratelimit-remaining', String(taken.remaining));
  });

  fastify.addHook('preHandler', async (request, reply) => {
    if ((request.method !== 'POST' && request.method !== 'PUT') || !request.principal) return;
    const header = request.headers['x-idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || header.length === 0 || header.length > IDEMPOTENCY_KEY_MAX) {
      return sendError(
        request,
        reply,
        'validation_error',
        `x-idempotency-key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`,
        [{ field: 'x-idempotency-key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters` }],
      );
    }
    const identity = idempotencyIdentity(request, header, request.principal);
    const store = options.infrastructure.scope(request.principal.environment).idempotency;
    const claim = await store.claim(identity, options.clock.now().getTime(), IDEMPOTENCY_LEASE_MS);
    if (claim.claimed) {
      request.idempotencyIdentity = identity;
      return;
    }
    if (claim.record.state === 'in_flight') {
      return sendError(
        request,
        reply,
        'idempotency_request_in_progress',
        'An identical request with this idempotency key is still being processed; retry shortly',
      );
    }
    const { status, headers, body } = claim.record.response;
    return reply.code(status).headers(headers).header('x-idempotent-replayed', 'true').send(body);
  });

  fastify.addHook('onSend', async (request, reply, payload) => {
    const identity = request.idempotencyIdentity;
    if (!identity || !request.principal) return payload;
    request.idempotencyIdentity = undefined;
    const store = options.infrastructure.scope(request.principal.environment).idempotency;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    await store.complete(
      identity,
      { status: reply.statusCode, headers, body },
      options.clock.now().getTime() + IDEMPOTENCY_RETENTION_MS,
    );
    return payload;
  });

  // Outcomes past their 24 hours are deleted in the background so the store stays the size of a day.
  const purge = setInterval(() => {
    for (const environment of ENVIRONMENTS) {
      options.infrastructure
        .scope(environment)
        .idempotency.purgeExpired(options.clock.now().getTime())
        .catch((error) => options.logger.warn({ err: error, environment }, 'idempotency purge failed'));
    }
  }, IDEMPOTENCY_PURGE_EVERY_MS);
  purge.unref();
  fastify.addHook('onClose', async () => clearInterval(purge));

  fastify.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const seconds = Number(process.hrtime.bigint() - (request.startedAt ?? process.hrtime.bigint())) / 1e9;
    const route = request.routeOptions?.url ?? 'unmatched';
    options.metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      seconds,
    );
    options.logger.info(
      {
        reqId: request.id,
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(seconds * 1e6) / 1e3,
        distributorId: request.principal?.distributorId,
        environment: request.principal?.environment,
      },
      'request',
    );
  });
}
