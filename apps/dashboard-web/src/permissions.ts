import { usePermissions } from 'react-admin';
import { permits, type StaffPermission, type StaffRole } from '@cip/backoffice/contract';

/** Whether the signed-in staff member may do what needs `permission` (the API refuses it otherwise). */
export function useCan(permission: StaffPermission): boolean {
  const { permissions } = usePermissions<StaffRole>();
  return Boolean(permissions) && permits(permissions as StaffRole, permission);
}
