import {
  API_ERROR_STATUS,
  ApiErrorCode,
  ApiFieldError,
  CommandFate,
  DomainError,
} from '@cip/shared/contracts';

/** What a failed command sends back: the payload of the RpcException. */
export interface WireError {
  code: ApiErrorCode;
  message: string;
  details?: ApiFieldError[];
  /** Set when the error is not the command's answer (`DomainError.fate`): the gateway must not store it. */
  fate?: CommandFate;
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
  ...(error.fate && { fate: error.fate }),
});

export const fromWireError = (error: WireError): DomainError =>
  new DomainError(error.code, error.message, error.details, error.fate);

/** Errors that say the service is unwell, as opposed to a rule violation it correctly reported. */
export const SERVICE_FAULTS: ReadonlySet<ApiErrorCode> = new Set(['internal_error', 'service_unavailable']);
