import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  AUDIT_TRAIL,
  type AuditTrail,
  permits,
  type StaffPermission,
  type StaffPrincipal,
} from '@cip/backoffice/contract';
import { StaffService } from '@cip/backoffice/service';
import { ApiError } from '@cip/gateway/http';
import type { FastifyRequest } from 'fastify';
import { isSameOrigin, sessionCookieOf } from './session-cookie';
import { OPERATOR_PUBLIC, STAFF_PERMISSION } from './staff-access';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The operator app's one guard, global: deny by default, then session, CSRF and role.
 * - `@PublicOperatorRoute()`: anyone; a write must still be same-origin (no login CSRF).
 * - `@StaffAccess(permission)`: a live session (`401 unauthorized`); on a write, a same-origin request with
 *   the session's `x-csrf-token` (`403 csrf_failed`); then the role (`403 forbidden`, recorded in the audit
 *   trail as a refused attempt).
 * - neither: `403 forbidden` for everyone, so a route that forgot its decorator is closed, not open.
 */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(StaffService) private readonly staff: StaffService,
    @Inject(AUDIT_TRAIL) private readonly trail: AuditTrail,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const request = context.switchToHttp().getRequest<FastifyRequest & { staff?: StaffPrincipal }>();
    const write = !READS.has(request.method);
    if (this.reflector.getAllAndOverride<boolean>(OPERATOR_PUBLIC, targets)) {
      if (write && !isSameOrigin(request)) throw csrfFailed();
      return true;
    }
    const permissions = this.reflector.getAllAndOverride<StaffPermission[] | undefined>(
      STAFF_PERMISSION,
      targets,
    );
    if (!permissions?.length) throw new ApiError('forbidden', 'This route is not open to staff');
    const principal = await this.staff.authenticate(sessionCookieOf(request));
    if (!principal) throw new ApiError('unauthorized', 'Sign in first: no session, or it has ended');
    if (write) {
      const token = request.headers['x-csrf-token'];
      if (
        !isSameOrigin(request) ||
        !this.staff.verifyCsrf(principal.sessionId, typeof token === 'string' ? token : undefined)
      )
        throw csrfFailed();
    }
    if (!permissions.some((permission) => permits(principal.role, permission))) {
      if (write) {
        await this.trail.record(principal, {
          action: `${request.method} ${request.routeOptions?.url ?? 'unmatched'}`,
          environment: null,
          target: { type: 'route', id: request.routeOptions?.url ?? 'unmatched' },
          outcome: 'refused',
          errorCode: 'forbidden',
        });
      }
      throw new ApiError('forbidden', `The role ${principal.role} may not do this`);
    }
    request.staff = principal;
    return true;
  }
}

const csrfFailed = () =>
  new ApiError('csrf_failed', 'The request needs the x-csrf-token of its session and the same origin');
