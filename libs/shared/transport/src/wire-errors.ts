import { API_ERROR_STATUS, ApiErrorCode, ApiFieldError, DomainError } from '@cip/shared/contracts';

/** What a failed command sends back: the payload of the RpcException. */
export interface WireError {
  code: ApiErrorCode;
  message: string;
  details?: ApiFieldError[];
}

export function isWireError(error: unknown): error is WireError {
  if (typeof error !== 'object' || error === null || error instanceof Error) return false;
  const { code, message } = error as Record<string, unknown>;
  return typeof code === 'string' && Object.hasOwn(API_ERROR_STATUS, code) && typeof message === 'string';
}

export const toWireError = (error: DomainError): WireError => ({
  code: error.code,
  message: error.message,
  details: error.details,
});

export const fromWireError = (error: WireError): DomainError =>
  new DomainError(error.code, error.message, error.details);

/** Errors that say the service is unwell, as opposed to a rule violation it correctly reported. */
export const SERVICE_FAULTS: ReadonlySet<ApiErrorCode> = new Set(['internal_error', 'service_unavailable']);
