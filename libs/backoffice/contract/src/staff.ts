/** Staff roles of the backoffice (docs/operator-api.md, "Staff, roles and sign-in"). */
export const STAFF_ROLES = ['viewer', 'support', 'compliance', 'admin'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** What a role may do beyond reading: `admin` may do everything. */
export type StaffPermission = 'read' | 'support' | 'compliance' | 'admin';

/** Whether a staff member of `role` may do what needs `permission`. */
export function permits(role: StaffRole, permission: StaffPermission): boolean {
  if (role === 'admin' || permission === 'read') return true;
  return role === permission;
}

/**
 * The statuses staff may move a user to (spec part 3, "User"): `frozen`, back to `active`, `disabled`,
 * `revoked` (terminal). `unverified` and `deleted` are the platform's (KYC, erasure).
 */
export const OPERATOR_USER_STATUSES = ['active', 'frozen', 'disabled', 'revoked'] as const;
export type OperatorUserStatus = (typeof OPERATOR_USER_STATUSES)[number];

/**
 * What moving a user from `from` to `to` needs, split as the card actions are: support freezes and
 * unfreezes (as it does cards); disabling, revoking and anything from a disabled or revoked user are
 * compliance's (as card holds are; the lifecycle refuses leaving revoked: 409 invalid_state_transition). The API and the dashboard's buttons both follow it (docs/operator-api.md).
 */
const COMPLIANCE_STATUSES: readonly string[] = ['disabled', 'revoked', 'deleted'];

export function userStatusPermission(from: string, to: OperatorUserStatus): StaffPermission {
  return to === 'disabled' || to === 'revoked' || COMPLIANCE_STATUSES.includes(from)
    ? 'compliance'
    : 'support';
}

export const STAFF_STATUSES = ['invited', 'active', 'disabled'] as const;
export type StaffStatus = (typeof STAFF_STATUSES)[number];

/** A staff member as the operator API shows it (never a credential). */
export interface StaffView {
  id: string;
  email: string;
  name: string;
  role: StaffRole;
  status: StaffStatus;
  /** Set while a lockout after repeated failed sign-ins runs. */
  lockedUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Who makes an operator API request: the signed-in staff member and their session. */
export interface StaffPrincipal {
  staffId: string;
  email: string;
  role: StaffRole;
  sessionId: string;
}
