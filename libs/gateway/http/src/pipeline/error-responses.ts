import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import {
  API_ERROR_STATUS,
  ApiErrorBody,
  ApiErrorCode,
  ApiFieldError,
  CommandFate,
  DomainError,
} from '@cip/shared/contracts';
import type { Logger } from '@cip/shared/runtime';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Thrown by the HTTP layer itself (validation, auth, rate limit): carries code, message and details. */
export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: ApiFieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function errorBody(
  code: ApiErrorCode,
  message: string,
  requestId: string,
  details?: ApiFieldError[],
): ApiErrorBody {
  return { error: { code, message, ...(details?.length ? { details } : {}) }, requestId };
}

/**
 * Paths outside /v1 that speak another protocol, whose errors are that protocol's messages (the 3DS access
 * control server answers EMV `Erro` messages): a request the pipeline refuses there (a body that is not a
 * JSON object, too large, rate limited, ...) gets the protocol's error instead of the API's error body.
 */
export interface ProtocolErrors {
  /** A path prefix outside /v1 (`/3ds/acs/`). */
  prefix: string;
  render(code: ApiErrorCode, message: string): { status: number; body: unknown };
}

const protocolErrors: ProtocolErrors[] = [];

/** Registers a protocol's error messages for its paths (once per prefix; the last registration wins). */
export function registerProtocolErrors(errors: ProtocolErrors): void {
  if (errors.prefix.startsWith('/v1/')) throw new Error('The /v1 API keeps its own error body');
  const index = protocolErrors.findIndex((known) => known.prefix === errors.prefix);
  if (index >= 0) protocolErrors.splice(index, 1);
  protocolErrors.push(errors);
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ApiErrorCode,
  message: string,
  details?: ApiFieldError[],
  headers: Record<string, string> = {},
): FastifyReply {
  const protocol = protocolErrors.find((known) => request.url.startsWith(known.prefix));
  if (protocol) {
    const { status, body } = protocol.render(code, message);
    return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
  }
  return reply
    .code(API_ERROR_STATUS[code])
    .headers(headers)
    .type('application/json; charset=utf-8')
    .send(errorBody(code, message, request.id, details));
}

/** About the reset time of the transport's circuit breaker (context-client.ts). */
const SERVICE_RETRY_AFTER_SECONDS = '10';

const FASTIFY_ERRORS: Record<string, [ApiErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'Send the request body as application/json'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'The request body is too large'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    'validation_error',
    'The Content-Length header does not match the body',
  ],
};

/**
 * Maps anything thrown while handling a request to the API's error shape. Known errors keep their code;
 * anything else is a 500 `internal_error` whose details stay in the log (never a stack trace in a response).
 */
export function toApiError(error: unknown): {
  code: ApiErrorCode;
  message: string;
  details?: ApiFieldError[];
  headers?: Record<string, string>;
  /** Set when the error is not the answer of the command (the transport's `DomainError.fate`). */
  fate?: CommandFate;
} {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) {
    // A service behind the gateway is down or its breaker is open: say when trying again makes sense.
    const headers: Record<string, string> =
      error.code === 'service_unavailable' ? { 'retry-after': SERVICE_RETRY_AFTER_SECONDS } : {};
    return { code: error.code, message: error.message, details: error.details, headers, fate: error.fate };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 404) return { code: 'not_found', message: 'No such resource or route' };
    if (status === 405) return { code: 'method_not_allowed', message: 'Method not allowed on this resource' };
    if (status === 400) return { code: 'validation_error', message: error.message };
    if (status === 413) return { code: 'payload_too_large', message: 'The request body is too large' };
    if (status === 415)
      return { code: 'unsupported_media_type', message: 'Send the request body as application/json' };
  }
  const fastifyCode = (error as { code?: string })?.code;
  if (fastifyCode && FASTIFY_ERRORS[fastifyCode]) {
    const [code, message] = FASTIFY_ERRORS[fastifyCode];
    return { code, message };
  }
  if (
    error instanceof SyntaxError ||
    fastifyCode === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    fastifyCode?.startsWith('FST_ERR_CTP')
  ) {
    return { code: 'validation_error', message: 'The request body is not valid JSON' };
  }
  const status = (error as { statusCode?: number })?.statusCode;
  if (status === 400) return { code: 'validation_error', message: 'The request is malformed' };
  return {
    code: 'internal_error',
    message: 'An unexpected error occurred; it has been logged with the request id',
  };
}

/** The one Nest exception filter: every error leaving a controller goes through here. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    answerError(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), exception, this.logger);
  }
}

/**
 * The answer to an error thrown while handling a request (the filter's body). What it says about the command
 * (`fate`) is kept on the request, where the idempotency hook reads it: such an answer is not an outcome.
 */
export function answerError(
  request: FastifyRequest,
  reply: FastifyReply,
  exception: unknown,
  logger: Logger,
): FastifyReply {
  const error = toApiError(exception);
  if (error.code === 'internal_error') {
    // Outside /v1 (the hosted pages) a path carries its link's credential (a reveal or KYC token): only
    // the route it matched is logged.
    const url = request.url.startsWith('/v1/') ? request.url : request.routeOptions?.url;
    logger.error({ err: exception, reqId: request.id, url }, 'request failed');
  }
  request.commandFate = error.fate;
  return sendError(request, reply, error.code, error.message, error.details, error.headers);
}
