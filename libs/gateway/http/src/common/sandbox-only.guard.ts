import { CanActivate, ExecutionContext, Injectable, UseGuards, applyDecorators } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../pipeline/error-responses';

/** Simulation endpoints exist for sandbox only (spec part 1, fact 10): a production key gets 403 sandbox_only. */
@Injectable()
class SandboxOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.principal && request.principal.environment !== 'sandbox') {
      throw new ApiError('sandbox_only', 'Simulation endpoints are available with sandbox keys only');
    }
    return true;
  }
}

/** Read by the document's post-processing, which adds the `403 sandbox_only` response. */
export const SANDBOX_ONLY_EXTENSION = 'x-sandbox-only';

/** Marks a controller or route as sandbox-only. */
export const SandboxOnly = () =>
  applyDecorators(UseGuards(SandboxOnlyGuard), ApiExtension(SANDBOX_ONLY_EXTENSION, true));
