import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_ERROR_STATUS, type ApiErrorCode } from '@cip/shared/contracts';
import { ERROR_CODES_EXTENSION, errorResponse, renameSchemas, toOpenApi31 } from '@cip/gateway/http';
import { STAFF_PERMISSION_EXTENSION } from '../access/staff-access';
import { SESSION_COOKIE } from '../access/session-cookie';

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Tags of the operator API with what they group (a tag without an entry is listed without a description). */
export const OPERATOR_TAGS: Record<string, string> = {
  Sessions: 'Sign-in with a password and a TOTP code, sessions, sign out everywhere, invitations.',
  Staff: 'Staff accounts and their roles (admin).',
  Audit: 'Every staff action, whatever its outcome: who, what, on what, why, when.',
  'Control plane': 'Distributors, their programs and API keys (changes: admin).',
  Health: "The platform's consumers, recent server errors of /v1 and webhook delivery backlog.",
};

const DESCRIPTION =
  'The operator API behind the backoffice dashboard (docs/operator-api.md). Staff sign in with `POST ' +
  '/operator/v1/session` (email, password, TOTP code) and get the `cip_staff_session` cookie (HttpOnly, ' +
  'Secure, SameSite=Strict, Path=/operator; idle timeout 30 minutes, absolute 12 hours) and a CSRF token. ' +
  'Every change (POST, PUT, PATCH, DELETE) needs that token in `x-csrf-token` and a same-origin request ' +
  '(`Sec-Fetch-Site: same-origin`, or an `Origin` of this host): else `403 csrf_failed` and nothing changes. ' +
  'Roles: `viewer` reads, `support` and `compliance` act in their field, `admin` does everything ' +
  '(`x-staff-permission` of each operation). Actions that change money or status take a `reason` (1 to 500 ' +
  'characters). Errors have the `/v1` shape `{"error": {"code", "message", "details"}, "requestId"}`. Lists ' +
  'answer `{data, nextCursor}` (`?limit=` 1 to 100, default 25; `?cursor=`).';

const OPERATOR_STATUS_TEXT: Record<number, string> = {
  401: 'No live session (`unauthorized`), or wrong sign-in credentials (`invalid_credentials`)',
  403: 'The role does not allow it (`forbidden`), or the CSRF token or origin is wrong (`csrf_failed`)',
  423: 'Too many failed sign-ins: retry after `retry-after` seconds',
};

/**
 * The operator API's own OpenAPI 3.1 document (`/operator/v1/openapi.json`): the controllers' decorators,
 * then what the operator app's guard and body reading add to every operation (session, CSRF and role
 * refusals, validation), converted to 3.1 as the `/v1` document is.
 */
export function buildOperatorOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Card-issuing platform operator API')
    .setVersion('v1')
    .setDescription(DESCRIPTION)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    // The dashboard calls its own origin: the document's server is wherever it was read from.
    .addServer('/', 'This operator app (DASHBOARD_PORT)')
    .addCookieAuth(SESSION_COOKIE, { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE }, 'staffSession')
    .addSecurityRequirements('staffSession');
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (_controller, method) => method,
  });
  renameSchemas(document);
  const components = (document.components ??= {}) as Record<string, Json>;
  components.headers = {
    ...components.headers,
    RequestId: { description: 'The id of this request', required: true, schema: { type: 'string' } },
    RetryAfter: {
      description: 'Seconds to wait before retrying',
      required: true,
      schema: { type: 'string', pattern: '^[0-9]+$' },
    },
  };
  components.schemas = {
    ...components.schemas,
    FieldError: {
      type: 'object',
      required: ['field', 'message'],
      properties: { field: { type: 'string' }, message: { type: 'string' } },
    },
  };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation) documentOperation(path, method, operation);
    }
  }
  toOpenApi31(document);
  const used = new Set(
    Object.values(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation as { tags?: string[] }).tags ?? []),
    ),
  );
  document.tags = [...used].sort().map((name) => ({ name, description: OPERATOR_TAGS[name] }));
  return document;
}

function documentOperation(_path: string, method: (typeof METHODS)[number], operation: Json): void {
  const parameters = (operation.parameters as Json[] | undefined) ?? [];
  const permission = operation[STAFF_PERMISSION_EXTENSION] as string | undefined;
  const codes = new Set<ApiErrorCode>((operation[ERROR_CODES_EXTENSION] as ApiErrorCode[] | undefined) ?? []);
  delete operation[ERROR_CODES_EXTENSION];
  const write = method !== 'get';
  if (permission === 'public') operation.security = [];
  else codes.add('unauthorized');
  if (permission === undefined || (permission !== 'public' && permission !== 'read')) codes.add('forbidden');
  if (write)
    codes.add('csrf_failed').add('validation_error').add('payload_too_large').add('unsupported_media_type');
  if (parameters.some((parameter) => parameter.in === 'query')) codes.add('validation_error');
  if (parameters.some((parameter) => parameter.in === 'path')) codes.add('not_found');

  const responses = (operation.responses ??= {}) as Record<string, Json>;
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of Object.keys(API_ERROR_STATUS) as ApiErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = API_ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, statusCodes] of byStatus) {
    const response = errorResponse(status, statusCodes) as Json;
    if (OPERATOR_STATUS_TEXT[status])
      response.description = `${OPERATOR_STATUS_TEXT[status]}: ${statusCodes.map((c) => `\`${c}\``).join(', ')}`;
    responses[status] = response;
  }
  for (const [status, response] of Object.entries(responses)) {
    const headers: Json = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
    if (status === '423' || status === '429')
      headers['retry-after'] = { $ref: '#/components/headers/RetryAfter' };
    response.headers = { ...(response.headers as Json), ...headers };
  }
}
