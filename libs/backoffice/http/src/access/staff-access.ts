import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { StaffPermission, StaffPrincipal } from '@cip/backoffice/contract';

/** Metadata key of the permission an operator route needs (read by the session guard). */
export const STAFF_PERMISSION = 'backoffice:permission';

/**
 * What an operator route needs: `read` (any signed-in staff member), `support`, `compliance` or `admin`
 * (`permits` in the contract). The session guard answers `401 unauthorized` without a live session and
 * `403 forbidden` when the role does not permit it.
 */
export const StaffAccess = (permission: StaffPermission) => SetMetadata(STAFF_PERMISSION, permission);

/** The request's signed-in staff member, set by the session guard. */
export const CurrentStaff = createParamDecorator(
  (_: unknown, context: ExecutionContext): StaffPrincipal =>
    context.switchToHttp().getRequest<{ staff: StaffPrincipal }>().staff,
);
