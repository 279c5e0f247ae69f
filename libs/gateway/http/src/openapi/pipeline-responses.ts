import type { OpenAPIObject } from '@nestjs/swagger';
import { API_ERROR_STATUS, ApiErrorCode } from '@cip/shared/contracts';
import { ERROR_CODES_EXTENSION } from '../common/api-errors.decorator';
import { SANDBOX_ONLY_EXTENSION } from '../common/sandbox-only.guard';
import type { Schema } from './openapi-3-1';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is invalid (`details` lists each field)',
  401: 'Missing or invalid `x-api-key`',
  403: 'Not allowed for this distributor, program or environment',
  404: 'No such resource for this distributor and environment',
  409: 'The request conflicts with the current state',
  413: 'The request body is too large',
  415: 'The request body is not `application/json`',
  422: 'The request is understood but breaks a rule of the program or the money',
  429: 'Too many requests: retry after `retry-after` seconds',
  503: 'A service behind the gateway is unreachable: retry after `retry-after` seconds',
};

const EXAMPLE_MESSAGES: Partial<Record<ApiErrorCode, string>> = {
  validation_error: 'The request is invalid; see details',
  unauthorized: 'The API key is not valid',
  not_found: 'No resource with this id',
  rate_limited: 'Too many requests for this API key; retry later',
};

/** Shared parts of every operation, referenced rather than repeated. */
const COMPONENTS = {
  headers: {
    RequestId: {
      description:
        'The id of this request (yours, from `x-request-id`, when it is 1 to 128 of `[A-Za-z0-9._-]`)',
      required: true,
      schema: { type: 'string', examples: ['req_5b0c2d3e-8f4a-4b6c-9d1e-2f3a4b5c6d7e'] },
    },
    RetryAfter: {
      description: 'Seconds to wait before retrying',
      required: true,
      schema: { type: 'string', pattern: '^[0-9]+$', examples: ['1'] },
    },
    IdempotentReplayed: {
      description: 'Present (`true`) when this is the stored outcome of an earlier request with the same key',
      schema: { type: 'string', enum: ['true'] },
    },
    Location: {
      description: 'Path of the created resource',
      schema: { type: 'string', examples: ['/v1/users/usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10'] },
    },
  },
  parameters: {
    IdempotencyKey: {
      name: 'x-idempotency-key',
      in: 'header',
      required: false,
      description:
        'Makes the request safe to retry: the outcome of the first request with this key, path, method, query ' +
        'and body is stored for 24 hours and replayed (with `x-idempotent-replayed: true`) instead of running ' +
        'again; the same key while the first is still running gets `409 idempotency_request_in_progress`, and ' +
        'one whose first request ran but whose answer a server crash lost gets `409 idempotency_outcome_lost` ' +
        '(it is never run twice: look the result up instead). Every answer of the operation is stored, ' +
        'failures included, except a `503 service_unavailable` of a service the platform could not reach or ' +
        'that did not answer in time: the result is not known, and the retry answers ' +
        '`409 idempotency_request_in_progress` while that request may still be running, ' +
        '`409 idempotency_outcome_lost` if it ran, and otherwise runs it.',
      schema: { type: 'string', minLength: 1, maxLength: 64, examples: ['order-7f3a9c'] },
    },
  },
  schemas: {
    FieldError: {
      type: 'object',
      required: ['field', 'message'],
      properties: {
        field: { type: 'string', description: 'Path of the field in the request', examples: ['email'] },
        message: { type: 'string', examples: ['email must be an email address'] },
      },
    },
  },
};

const header = (name: keyof typeof COMPONENTS.headers) => ({ $ref: `#/components/headers/${name}` });

/** The error body of API-DECISIONS.md, with `error.code` narrowed to what this response can carry. */
export function errorResponse(status: number, codes: ApiErrorCode[]): Schema {
  const [first] = codes;
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}`,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['error', 'requestId'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: codes },
                message: { type: 'string', description: 'For people: do not parse it' },
                details: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
              },
            },
            requestId: { type: 'string' },
          },
        },
        example: {
          error: { code: first, message: EXAMPLE_MESSAGES[first] ?? `Refused: ${first}` },
          requestId: 'req_5b0c2d3e-8f4a-4b6c-9d1e-2f3a4b5c6d7e',
        },
      },
    },
  };
}

/**
 * What the gateway's pipeline adds to every operation, written into the document after @nestjs/swagger
 * built it from the controllers, so that an endpoint added anywhere is documented with no work of its own:
 * the error codes of authentication, rate limit, validation, ids and idempotency next to the operation's
 * own (`@ApiErrors`), `x-request-id` on every response, `retry-after` on 429 and 503, the
 * `x-idempotency-key` header and `x-idempotent-replayed` on POST and PUT.
 */
export function documentPipeline(document: OpenAPIObject): void {
  const components = (document.components ??= {}) as Record<string, Record<string, unknown>>;
  for (const [kind, entries] of Object.entries(COMPONENTS)) {
    components[kind] = { ...components[kind], ...entries };
  }
  for (const [path, pathItem] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Schema | undefined;
      if (operation) documentOperation(path, method, operation);
    }
  }
}

function documentOperation(path: string, method: (typeof METHODS)[number], operation: Schema): void {
  const parameters = (operation.parameters as Schema[] | undefined) ?? [];
  const writes = method === 'post' || method === 'put';
  // Only /v1 needs an API key (authentication.hook.ts); a page at a well-known url is public.
  const authenticated = path.startsWith('/v1/');
  const codes = new Set<ApiErrorCode>((operation[ERROR_CODES_EXTENSION] as ApiErrorCode[] | undefined) ?? []);
  if (operation[SANDBOX_ONLY_EXTENSION]) codes.add('sandbox_only');
  delete operation[ERROR_CODES_EXTENSION];
  delete operation[SANDBOX_ONLY_EXTENSION];

  if (authenticated) codes.add('unauthorized').add('rate_limited').add('service_unavailable');
  else operation.security = [];
  if (parameters.some((parameter) => parameter.in === 'query')) codes.add('validation_error');
  if (parameters.some((parameter) => parameter.in === 'path')) codes.add('not_found');
  // Any body sent with these methods is parsed: JSON objects only, within the size limit.
  if (method !== 'get') codes.add('validation_error').add('payload_too_large').add('unsupported_media_type');
  if (writes) {
    codes.add('validation_error').add('idempotency_request_in_progress').add('idempotency_outcome_lost');
    operation.parameters = [...parameters, { $ref: '#/components/parameters/IdempotencyKey' }];
  }

  const responses = (operation.responses ??= {}) as Record<string, Schema>;
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of Object.keys(API_ERROR_STATUS) as ApiErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = API_ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, statusCodes] of byStatus) responses[status] = errorResponse(status, statusCodes);

  for (const [status, response] of Object.entries(responses)) {
    const headers: Record<string, unknown> = { 'x-request-id': header('RequestId') };
    if (status === '429' || status === '503') headers['retry-after'] = header('RetryAfter');
    if (status === '201') headers['location'] = header('Location');
    if (writes) headers['x-idempotent-replayed'] = header('IdempotentReplayed');
    response.headers = { ...(response.headers as object), ...headers };
  }
}
