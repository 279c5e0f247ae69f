import { ApiExtension } from '@nestjs/swagger';
import type { ApiErrorCode } from '@cip/shared/contracts';

/** Where the decorators below leave their facts for the document's post-processing (`openapi/`). */
export const ERROR_CODES_EXTENSION = 'x-error-codes';

/**
 * Documents the error codes an operation returns of its own (a rule of its context: `duplicate_user_error`,
 * `insufficient_funds`), each under the HTTP status of API_ERROR_STATUS. The codes any request may get from
 * the pipeline (`unauthorized`, `rate_limited`, `validation_error` of a body or query, `not_found` of a
 * path id, `idempotency_request_in_progress`, ...) are added to every operation when the document is built.
 */
export const ApiErrors = (...codes: ApiErrorCode[]) => ApiExtension(ERROR_CODES_EXTENSION, codes);
