import type { Clock } from '@cip/shared/runtime';
import type { FastifyInstance } from 'fastify';
import { sendError } from './error-responses';
import { RateLimiter } from './rate-limiter';

/**
 * Per-key rate limit of authenticated requests: `429 rate_limited` with `retry-after` beyond the burst, and
 * the `ratelimit-*` headers on every answer.
 */
export function installRateLimit(
  fastify: FastifyInstance,
  options: { ratePerSecond: number; burst: number; clock: Clock },
): void {
  const limiter = new RateLimiter(options.ratePerSecond, options.burst);
  fastify.addHook('onRequest', async (request, reply) => {
    if (!request.principal) return;
    const taken = limiter.take(request.principal.keyId, options.clock.now().getTime());
    reply.header('ratelimit-limit', String(limiter.burst));
    if (!taken.allowed) {
      return sendError(
        request,
        reply,
        'rate_limited',
        'Too many requests for this API key; retry later',
        undefined,
        { 'retry-after': String(taken.retryAfterSeconds), 'ratelimit-remaining': '0' },
      );
    }
    reply.header('ratelimit-remaining', String(taken.remaining));
  });
}
