import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Principal } from '@cip/distributors/service';
import type { Caller as CallerOfContexts } from '@cip/shared/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../pipeline/error-responses';

/** The platform's Caller, as the gateway resolves it from the API key (which it also remembers). */
export interface Caller extends CallerOfContexts, Principal {
  requestId: string;
}

/** The authenticated caller of the request (set by the gateway pipeline's authentication hook). */
export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  if (!request.principal) throw new ApiError('unauthorized', 'The API key is not valid');
  const { idempotentRun } = request;
  return {
    ...request.principal,
    requestId: request.id,
    ...(idempotentRun && { idempotency: idempotentRun }),
  };
});
