import type { ApiErrorCode } from '@cip/shared/contracts';
import { API_ERROR_STATUS } from '@cip/shared/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, sendError } from './error-responses';

/**
 * Refusals made before Fastify has a request (HTTP that does not parse, headers too large, a request cut off by
 * the server's deadlines) in the API's error shape, instead of Fastify's own body. Passed as Fastify's
 * `clientErrorHandler`.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message]: [ApiErrorCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['request_timeout', 'The request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ['headers_too_large', 'The request line and headers are too large']
        : ['validation_error', 'The request is not valid HTTP'];
  const requestId = `req_${randomUUID()}`;
  const body = JSON.stringify(errorBody(code, message, requestId));
  const status = API_ERROR_STATUS[code];
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Refusals of Fastify's router (Fastify's `frameworkErrors`): a path that is not well-formed
 * percent-encoding is a 400; a path parameter longer than any id is simply not found, like any id that
 * cannot exist.
 */
export function answerRouterError(
  error: Error & { code?: string },
  request: FastifyRequest,
  reply: FastifyReply,
) {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return sendError(request, reply, 'not_found', 'No such resource');
  }
  return sendError(request, reply, 'validation_error', 'The URL is not valid (malformed percent-encoding)');
}
