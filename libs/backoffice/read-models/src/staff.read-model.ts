import type { AuditEntry, AuditFilter, StaffView } from '@cip/backoffice/contract';
import { isLocked, type StaffRecord } from '@cip/backoffice/domain';

/** A staff member as the operator API shows it: no credential, the lockout only while it runs. */
export function renderStaff(record: StaffRecord, now: string): StaffView {
  return {
    id: record.staffId,
    email: record.email,
    name: record.name,
    role: record.role,
    status: record.status,
    lockedUntil: isLocked(record, now) ? record.lockedUntil : null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** Whether an audit entry is one the filter asks for (every given field must match). */
export const auditMatches = (entry: AuditEntry, filter: AuditFilter): boolean =>
  (filter.staffId === undefined || entry.staff.id === filter.staffId) &&
  (filter.targetId === undefined || entry.target.id === filter.targetId) &&
  (filter.userId === undefined || entry.userId === filter.userId) &&
  (filter.action === undefined || entry.action === filter.action);
