import type { Environment, FindPage, FindResult } from '@cip/shared/contracts';
import type { AuditEntry, AuditFilter } from './audit';

/** Which audit entries: the `/audit` page's filters, plus the environment the entries were made in. */
export interface AuditLogFilter extends AuditFilter {
  environment?: Environment;
}

/**
 * The audit trail's read model as the environment pages read it (the user and card timelines merge the
 * staff actions on them with the platform's Events). Pages as every context list does: `startingAfter` an
 * entry id, in `sort` order of `at` (`createdAt`).
 */
export interface AuditLog {
  list(filter: AuditLogFilter, page: FindPage): Promise<FindResult<AuditEntry>>;
}

export const AUDIT_LOG = Symbol('AUDIT_LOG');
