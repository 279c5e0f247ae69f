import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Principal } from '@cip/distributors/service';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../pipeline/error-responses';

export interface Caller extends Principal {
  requestId: string;
}

/** The authenticated caller of the request (set by the gateway pipeline's authentication hook). */
export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  if (!request.principal) throw new ApiError('unauthorized', 'The API key is not valid');
  return { ...request.principal, requestId: request.id };
});
