import type { Logger, PlatformMetrics } from '@cip/shared/runtime';
import type { FastifyInstance } from 'fastify';

/** One log line and one latency observation per request, by route and status (never the body or the key). */
export function installAccessLog(
  fastify: FastifyInstance,
  options: { metrics: PlatformMetrics; logger: Logger },
): void {
  fastify.addHook('onResponse', async (request, reply) => {
    const seconds = Number(process.hrtime.bigint() - (request.startedAt ?? process.hrtime.bigint())) / 1e9;
    const route = request.routeOptions?.url ?? 'unmatched';
    options.metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      seconds,
    );
    if (reply.statusCode >= 500 && request.url.startsWith('/v1/')) {
      options.metrics.recentServerErrors.record({
        at: new Date().toISOString(),
        method: request.method,
        route,
        status: reply.statusCode,
        requestId: request.id,
      });
    }
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
