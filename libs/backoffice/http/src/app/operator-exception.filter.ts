import { ArgumentsHost, Catch } from '@nestjs/common';
import { AccountLockedError } from '@cip/backoffice/domain';
import { ApiError, ApiExceptionFilter } from '@cip/gateway/http';

/** The `/v1` exception filter, plus `retry-after` on `423 account_locked`. */
@Catch()
export class OperatorExceptionFilter extends ApiExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    if (exception instanceof AccountLockedError) {
      const error = new ApiError('account_locked', exception.message, undefined, {
        'retry-after': String(exception.retryAfterSeconds),
      });
      return super.catch(error, host);
    }
    super.catch(exception, host);
  }
}
