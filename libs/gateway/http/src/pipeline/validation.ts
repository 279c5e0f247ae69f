import { ValidationError, ValidationPipe } from '@nestjs/common';
import type { ApiFieldError } from '@cip/shared/contracts';
import { ApiError } from './error-responses';

function flatten(errors: ValidationError[], parent = ''): ApiFieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * DTO validation for every endpoint: unknown fields are refused (a typo is an error, not a silent no-op),
 * types are not coerced in bodies, and every failing field is listed in `error.details`.
 */
export const apiValidationPipe = () =>
  new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) =>
      new ApiError('validation_error', 'The request is invalid; see details', flatten(errors)),
  });
