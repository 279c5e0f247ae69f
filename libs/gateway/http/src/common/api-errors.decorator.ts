import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

const DESCRIPTIONS: Record<number, string> = {
  400: 'validation_error: the request is invalid (details list each field)',
  401: 'unauthorized: missing or invalid x-api-key',
  403: 'forbidden (or a feature-specific code): not allowed for this distributor or environment',
  404: 'not_found: no such resource for this distributor and environment',
  409: 'conflict: duplicate_user_error, invalid_state_transition or idempotency_request_in_progress',
  422: 'country_not_allowed: the country is not in the program',
  429: 'rate_limited: retry after the Retry-After seconds',
};

/** Documents the error responses of an operation (all share the error body of API-DECISIONS.md). */
export const ApiErrors = (...statuses: number[]) =>
  applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status],
        schema: { $ref: '#/components/schemas/ErrorBody' },
      }),
    ),
  );
