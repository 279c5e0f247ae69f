import { DomainError } from '@cip/shared/contracts';
import type { AuditRecordInput, AuditTarget, AuditTrail, StaffPrincipal } from '@cip/backoffice/contract';

/**
 * Runs a staff action and records it in the audit trail whatever its outcome: `succeeded`, or `refused`
 * with the domain's error code (the error is then rethrown unchanged, so the operator sees the same 4xx).
 * Faults that are not a DomainError are rethrown unrecorded: they are the platform's, not the staff's.
 */
export async function audited<T>(
  trail: AuditTrail,
  staff: StaffPrincipal,
  entry: AuditRecordInput,
  action: () => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await action();
  } catch (error) {
    if (error instanceof DomainError) {
      await trail.record(staff, { ...entry, outcome: 'refused', errorCode: error.code });
    }
    throw error;
  }
  await trail.record(staff, { ...entry, outcome: 'succeeded' });
  return result;
}

/** `audited` for an action of the control plane (no environment) on one target: a staff account, an API key. */
export function auditedControl<T>(
  trail: AuditTrail,
  staff: StaffPrincipal,
  target: AuditTarget,
  entry: Pick<AuditRecordInput, 'action' | 'reason'>,
  action: () => Promise<T>,
): Promise<T> {
  return audited(trail, staff, { ...entry, environment: null, target }, action);
}
