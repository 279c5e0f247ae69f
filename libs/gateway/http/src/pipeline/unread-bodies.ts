import type { FastifyInstance } from 'fastify';

/** Past this, a body answered unread is not read to its end: the connection is closed as it comes. */
export const MAX_DRAINED_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Reads to its end (and drops) a request body still on the wire when its answer is ready (a 413 for a body
 * over the limit, any refusal made before the body was read), then answers. Otherwise Node closes the
 * connection with the client's bytes unread: the kernel answers them with a reset, and a client in another
 * process (every real one) mostly loses the answer already sent (a connection reset instead of the 413 in
 * the error shape). Bounded: bodies declared over MAX_DRAINED_BODY_BYTES are not read (nor past it), and a
 * client that stops sending is cut off by the request timeout.
 */
export function installUnreadBodyDrain(fastify: FastifyInstance): void {
  // A callback hook, not an async one: on every answer of the hot path (a body read whole) it costs one check
  // and no promise.
  fastify.addHook('onSend', (request, _reply, payload, next) => {
    const raw = request.raw;
    const declared = Number(raw.headers['content-length'] ?? 0);
    if (raw.complete || raw.destroyed || declared > MAX_DRAINED_BODY_BYTES) return next(null, payload);
    let read = 0;
    const done = () => {
      raw.off('data', count);
      raw.off('end', done);
      raw.off('close', done);
      raw.off('error', done);
      next(null, payload);
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > MAX_DRAINED_BODY_BYTES) done();
    };
    raw.on('data', count);
    raw.once('end', done);
    raw.once('close', done);
    raw.once('error', done);
    raw.resume();
  });
}
