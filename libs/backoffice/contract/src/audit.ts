import type { Environment } from '@cip/shared/contracts';
import type { StaffPrincipal, StaffRole } from './staff';

/** What an audited action was done to. */
export interface AuditTarget {
  /** `user`, `card`, `wallet`, `kyc`, `event`, `distributor`, `key`, `staff`, `session`. */
  type: string;
  id: string;
}

/** One staff action, whatever its outcome (docs/operator-api.md, "Audit trail"). */
export interface AuditEntry {
  id: string;
  at: string;
  staff: { id: string; email: string; role: StaffRole };
  /** `card.unblock`, `kyc.review`, `key.roll`, `session.signIn`, ... */
  action: string;
  /** Null for control-plane actions (distributors, keys, staff, sessions). */
  environment: Environment | null;
  target: AuditTarget;
  /** The user the action concerns, when there is one: the user's timeline shows it. */
  userId: string | null;
  reason: string | null;
  outcome: 'succeeded' | 'refused';
  /** The error code of a refused action. */
  errorCode: string | null;
}

/** What a caller hands the audit trail; who and when are added by it. */
export type AuditRecordInput = Pick<AuditEntry, 'action' | 'environment' | 'target'> &
  Partial<Pick<AuditEntry, 'userId' | 'reason' | 'outcome' | 'errorCode'>>;

export interface AuditFilter {
  staffId?: string;
  targetId?: string;
  userId?: string;
  action?: string;
}

/** The audit trail: every staff action is an event of the control scope. */
export interface AuditTrail {
  record(staff: StaffPrincipal, entry: AuditRecordInput): Promise<AuditEntry>;
}

export const AUDIT_TRAIL = Symbol('AUDIT_TRAIL');
