/**
 * Error codes of the public API (API-DECISIONS.md, "Errors"). Every non-2xx response carries one of
 * these in `error.code`; the HTTP status of each code is fixed here so that every context agrees.
 */
export const API_ERROR_STATUS = {
  validation_error: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  forbidden: 403,
  kyc_import_not_enabled: 403,
  sandbox_only: 403,
  csrf_failed: 403,
  not_found: 404,
  method_not_allowed: 405,
  duplicate_user_error: 409,
  kyc_resume_not_allowed_error: 409,
  create_wallet_error: 409,
  user_not_active: 409,
  card_unfreeze_blocked_error: 409,
  shipping_address_required: 409,
  invalid_state_transition: 409,
  idempotency_request_in_progress: 409,
  idempotency_outcome_lost: 409,
  concurrency_conflict: 409,
  wallet_compliance_hold: 409,
  card_not_active: 409,
  activation_method_unavailable: 409,
  card_authentication_expired: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  country_not_allowed: 422,
  insufficient_funds: 422,
  amount_too_large: 422,
  amount_exceeds_hold: 422,
  account_locked: 423,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

export interface ApiFieldError {
  field: string;
  message: string;
}

/** The error body of every non-2xx response. */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; details?: ApiFieldError[] };
  requestId: string;
}

/**
 * What an error that is not the command's own answer says about the command it was for, as the process that
 * sent it knows: `not_run`, it never ran (never sent: an open breaker, a refused connection; or refused
 * before running, another run of its claim still running there); `unknown`, it may have run or still be
 * running (sent, and no answer came in time or the connection broke). A keyed request's outcome depends on
 * it: such an answer is not the request's result, and is never stored as it (docs/API-DECISIONS.md,
 * idempotency).
 */
export type CommandFate = 'not_run' | 'unknown';

/**
 * A rule violation raised by a decider or a service. It carries the public error code; the gateway's
 * exception filter turns it into the HTTP status and body above. Domain code throws these and nothing else.
 * `fate` is only set by the transport, when the error is not an answer of the command (see CommandFate).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: ApiFieldError[],
    readonly fate?: CommandFate,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return API_ERROR_STATUS[this.code];
  }
}

export const notFound = (what: string, id: string) =>
  new DomainError('not_found', `${what} ${id} was not found`);
