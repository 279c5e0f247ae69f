import type { Principal } from '@cip/distributors/service';
import type { Clock } from '@cip/shared/runtime';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './error-responses';
import { RateLimiter } from './rate-limiter';

/** Paths of /v1 served without an API key (the API's own description). */
const PUBLIC_PATHS = new Set(['/v1/openapi.json']);
/** Longer keys are refused without a lookup. */
const API_KEY_MAX = 200;

/** Whether a request is to the /v1 API and needs an API key. */
export function needsApiKey(request: FastifyRequest): boolean {
  const path = request.url.split('?', 1)[0];
  return path.startsWith('/v1/') && !PUBLIC_PATHS.has(path) && !path.startsWith('/v1/docs');
}

/**
 * API-key authentication of /v1: `x-api-key` resolves to the caller's distributor, environment and program
 * (the principal), or the request is answered `401 unauthorized` before it reaches a controller. Requests
 * without a valid key are rate limited per client address (`429 rate_limited`), so keys cannot be guessed
 * at the speed of the network.
 */
export function installAuthentication(
  fastify: FastifyInstance,
  options: {
    authenticate(apiKey: string): Promise<Principal | null>;
    rateLimit: { ratePerSecond: number; burst: number };
    clock: Clock;
  },
): void {
  const unauthenticated = new RateLimiter(options.rateLimit.ratePerSecond, options.rateLimit.burst);
  const refuse = (request: FastifyRequest, reply: FastifyReply, message: string) => {
    const taken = unauthenticated.take(request.ip, options.clock.now().getTime());
    if (!taken.allowed) {
      return sendError(
        request,
        reply,
        'rate_limited',
        'Too many requests without a valid API key; retry later',
        undefined,
        {
          'retry-after': String(taken.retryAfterSeconds),
        },
      );
    }
    return sendError(request, reply, 'unauthorized', message);
  };
  fastify.addHook('onRequest', async (request, reply) => {
    if (!needsApiKey(request)) return;
    const apiKey = request.headers['x-api-key'];
    if (typeof apiKey !== 'string' || apiKey.length === 0) {
      return refuse(request, reply, 'Send your API key in the x-api-key header');
    }
    const principal = apiKey.length <= API_KEY_MAX ? await options.authenticate(apiKey) : null;
    if (!principal) return refuse(request, reply, 'The API key is not valid');
    request.principal = principal;
  });
}
