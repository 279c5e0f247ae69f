import type { Principal } from '@cip/distributors/service';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendError } from './error-responses';

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
 * (the principal), or the request is answered `401 unauthorized` before it reaches a controller.
 */
export function installAuthentication(
  fastify: FastifyInstance,
  authenticate: (apiKey: string) => Promise<Principal | null>,
): void {
  fastify.addHook('onRequest', async (request, reply) => {
    if (!needsApiKey(request)) return;
    const apiKey = request.headers['x-api-key'];
    if (typeof apiKey !== 'string' || apiKey.length === 0) {
      return sendError(request, reply, 'unauthorized', 'Send your API key in the x-api-key header');
    }
    const principal = apiKey.length <= API_KEY_MAX ? await authenticate(apiKey) : null;
    if (!principal) return sendError(request, reply, 'unauthorized', 'The API key is not valid');
    request.principal = principal;
  });
}
