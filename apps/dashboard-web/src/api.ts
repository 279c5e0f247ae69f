// The operator API client (docs/operator-api.md): same origin, cookie session, `x-csrf-token` on every change.
// Hand-written over fetch (a dozen lines) rather than a REST data-provider package: the operator API's
// cursor pages, CSRF header and error shape are its own.
import { HttpError } from 'react-admin';

const API_BASE = '/operator/v1';
/** The pages' routes start with the environment (`/sandbox/...`); the API's environment paths with `/environments/`. */
const ENVIRONMENT_PATH = /^\/(sandbox|production)\//;
const apiPath = (path: string) => (ENVIRONMENT_PATH.test(path) ? `/environments${path}` : path);

/** The API's error body, `{error: {code, message, details}}`, plus the `retry-after` of a lockout. */
export interface ApiErrorBody {
  code: string;
  message: string;
  details?: unknown;
  retryAfterSeconds?: number;
}

let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

type Query = Record<string, string | number | undefined | null>;

function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export async function api<T = unknown>(
  path: string,
  init: { method?: string; body?: unknown; query?: Query } = {},
): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(API_BASE + apiPath(withQuery(path, init.query)), {
    method,
    headers,
    credentials: 'same-origin',
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = (json as { error?: ApiErrorBody } | undefined)?.error;
    const retryAfter = Number(response.headers.get('retry-after'));
    const body: ApiErrorBody = {
      code: error?.code ?? `http_${response.status}`,
      message: error?.message ?? `The request failed (${response.status} ${response.statusText})`,
      details: error?.details,
      retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    };
    throw new HttpError(body.message, response.status, body);
  }
  return json as T;
}

/** The API error of a failed call, for showing it (`card_unfreeze_blocked_error: ...`). */
export function errorBody(error: unknown): ApiErrorBody {
  if (error instanceof HttpError && error.body && typeof error.body === 'object')
    return error.body as ApiErrorBody;
  return { code: 'error', message: error instanceof Error ? error.message : String(error) };
}
