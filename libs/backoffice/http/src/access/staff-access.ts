import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { StaffPermission, StaffPrincipal } from '@cip/backoffice/contract';

/** Metadata key of the permission an operator route needs (read by the session guard). */
export const STAFF_PERMISSION = 'backoffice:permission';
/** Metadata key of the operator routes anyone may call (sign-in, invitations). */
export const OPERATOR_PUBLIC = 'backoffice:public';
/**
 * Where the OpenAPI document says what an operation needs (`read`, `support`, `compliance`, `admin`, `public`,
 * or a list of which any one will do).
 */
export const STAFF_PERMISSION_EXTENSION = 'x-staff-permission';

/**
 * What an operator route needs: `read` (any signed-in staff member), `support`, `compliance` or `admin`
 * (`permits` in the contract); with several, any one of them (an action whose role depends on its body,
 * as a user's status change, lets each in and checks the rest itself). The session guard answers
 * `401 unauthorized` without a live session and `403 forbidden` when the role permits none. A route with
 * neither this nor `@PublicOperatorRoute()` is refused to everyone (deny by default).
 */
export const StaffAccess = (permission: StaffPermission, ...orElse: StaffPermission[]) =>
  applyDecorators(
    SetMetadata(STAFF_PERMISSION, [permission, ...orElse]),
    ApiExtension(STAFF_PERMISSION_EXTENSION, orElse.length ? [permission, ...orElse] : permission),
  );

/** A route open without a session (sign-in, invitations); its writes still need a same-origin request. */
export const PublicOperatorRoute = () =>
  applyDecorators(SetMetadata(OPERATOR_PUBLIC, true), ApiExtension(STAFF_PERMISSION_EXTENSION, 'public'));

/** The request's signed-in staff member, set by the session guard. */
export const CurrentStaff = createParamDecorator(
  (_: unknown, context: ExecutionContext): StaffPrincipal =>
    context.switchToHttp().getRequest<{ staff: StaffPrincipal }>().staff,
);
