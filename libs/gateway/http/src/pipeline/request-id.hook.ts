import type { FastifyInstance } from 'fastify';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A caller-supplied request id is kept when it is sane, so logs can be joined across systems. */
export function requestIdOf(header: string | string[] | undefined, generated: () => string): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : generated();
}

/** Every response carries `x-request-id`; the request's start time is taken for the access log. */
export function installRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    request.startedAt = process.hrtime.bigint();
    reply.header('x-request-id', request.id);
  });
}
