import type { Principal } from '@cip/distributors/service';
import { ENVIRONMENTS, IDEMPOTENCY_REFUSALS, Tenant } from '@cip/shared/contracts';
import type { Infrastructure } from '@cip/shared/infrastructure';
import type { Clock, Logger } from '@cip/shared/runtime';
import type { FastifyInstance } from 'fastify';
import { createHash, randomUUID } from 'node:crypto';
import { sendError } from './error-responses';

/** Idempotency (spec part 4): retention of outcomes, and the lease of an in-flight claim. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * Also how long the claim of a command whose answer did not come in time blocks its key (`409 in progress`)
 * before a retry takes the crash path: well above the transport's command timeout (5 s by default).
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;
const IDEMPOTENCY_PURGE_EVERY_MS = 15 * 60_000;
const IDEMPOTENCY_KEY_MAX = 64;
/** Response headers worth replaying; the others describe the transport, not the outcome. */
const REPLAYED_HEADERS = ['content-type', 'location'];

/** Stable JSON: object keys sorted, so that the same body always yields the same identity. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What the identity of a request is made of, as the router saw it. */
export interface IdempotentRequest {
  method: string;
  /** The raw url (used only when no route matched). */
  url: string;
  /** The route pattern the router matched (`/v1/wallets/:walletId/withdrawals`). */
  route?: string;
  /** The route's parameters, decoded. */
  params?: unknown;
  /** The query string, parsed. */
  query?: unknown;
  body?: unknown;
}

/**
 * The five-part identity of spec part 4 (key, path, method, query, body), scoped to the caller's
 * distributor and environment so one tenant can never replay another's outcome. The path is the route
 * the router matched with its decoded parameters, and the query its parsed values, never the raw text:
 * two spellings of one request (a trailing slash, percent-encoded characters, the order of the query)
 * are one request, and the second replays the first instead of executing again.
 */
export function idempotencyIdentity(request: IdempotentRequest, key: string, tenant: Tenant): string {
  let target: string;
  let query: string;
  if (request.route !== undefined) {
    target = canonicalJson({ route: request.route, params: request.params ?? {} });
    query = canonicalJson(request.query ?? {});
  } else {
    const [path, raw = ''] = request.url.split('?', 2);
    const sorted = new URLSearchParams(raw);
    sorted.sort();
    target = path;
    query = sorted.toString();
  }
  const parts = [
    tenant.distributorId,
    tenant.environment,
    key,
    request.method,
    target,
    query,
    canonicalJson(request.body ?? null),
  ];
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

export interface IdempotencyOptions {
  infrastructure: Infrastructure;
  clock: Clock;
  logger: Logger;
}

/**
 * `x-idempotency-key` on POST and PUT: the first request with an identity claims it before its handler
 * runs; its outcome (success or failure) is stored as sent and replayed for 24 hours with
 * `x-idempotent-replayed: true`; an identical request still running gets `409
 * idempotency_request_in_progress`, and one whose command ran in a process that died before storing its
 * answer `409 idempotency_outcome_lost` (never a second run). Expired outcomes are purged in the background.
 *
 * An answer that is not the command's (a 503 of the transport, `request.commandFate`) is never stored: the
 * request's result is not known. A command never sent (or refused unrun by the service) gives its claim up,
 * and the retry runs it; one sent but unanswered (a timeout, a dropped connection) may still run, so its claim
 * is left as a gateway crash leaves it: in flight until its lease passes, then the retry finds whether the
 * command ran (`outcome_lost`) or not (it runs).
 */
export function installIdempotency(fastify: FastifyInstance, options: IdempotencyOptions): void {
  const store = (principal: Principal) => options.infrastructure.scope(principal.environment).idempotency;

  fastify.addHook('preHandler', async (request, reply) => {
    if ((request.method !== 'POST' && request.method !== 'PUT') || !request.principal) return;
    const header = request.headers['x-idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || header.length === 0 || header.length > IDEMPOTENCY_KEY_MAX) {
      const message = `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`;
      return sendError(request, reply, 'validation_error', `x-idempotency-key ${message}`, [
        { field: 'x-idempotency-key', message },
      ]);
    }
    const identity = idempotencyIdentity(
      {
        method: request.method,
        url: request.url,
        route: request.routeOptions?.url,
        params: request.params,
        query: request.query,
        body: request.body,
      },
      header,
      request.principal,
    );
    const now = options.clock.now().getTime();
    const claim = await store(request.principal).claim(identity, now, IDEMPOTENCY_LEASE_MS, request.id);
    if (claim.claimed) {
      const expiresAt = now + IDEMPOTENCY_RETENTION_MS;
      request.idempotencyIdentity = identity;
      // The command's events carry the request id (`callerContext`): the store records the run with them when
      // the command runs here; a service of the split topology does, from the run its Caller carries.
      store(request.principal).track?.(identity, request.id, expiresAt);
      request.idempotentRun = { key: identity, run: randomUUID(), claimedAt: now, expiresAt };
      return;
    }
    if (claim.record.state !== 'completed') {
      const code =
        claim.record.state === 'in_flight' ? 'idempotency_request_in_progress' : 'idempotency_outcome_lost';
      return sendError(request, reply, code, IDEMPOTENCY_REFUSALS[code]);
    }
    const { status, headers, body } = claim.record.response;
    return reply.code(status).headers(headers).header('x-idempotent-replayed', 'true').send(body);
  });

  fastify.addHook('onSend', async (request, reply, payload) => {
    const identity = request.idempotencyIdentity;
    if (!identity || !request.principal) return payload;
    request.idempotencyIdentity = undefined;
    if (request.commandFate === 'not_run') {
      // Never sent, or the service still runs an earlier run of this claim (whose gateway died): this request
      // did not run. The claim is given up; a retry runs it, or finds how that earlier run ended.
      await store(request.principal).release(identity);
      return payload;
    }
    if (request.commandFate === 'unknown') {
      // Sent, unanswered: the service may still complete it. Nothing is stored and the claim stays in flight,
      // as after a crash of this gateway; once its lease passes, a retry finds the mark of the run or runs it.
      options.logger.warn(
        { reqId: request.id, status: reply.statusCode },
        'keyed request unanswered by its service: its claim is left to its lease, no outcome stored',
      );
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    await store(request.principal).complete(
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
}
