import type { AuditEntry, AuditFilter } from './audit';
import type { OperatorPage } from './environment-pages';

/**
 * The audit trail's read side as the environment pages read it: the user and card timelines merge the
 * staff actions on them with the platform's Events. Newest first; `cursor` is the `nextCursor` of the page
 * before (the `GET /audit` page's own list).
 */
export interface AuditLog {
  list(filter: AuditFilter, page: { limit: number; cursor?: string }): Promise<OperatorPage<AuditEntry>>;
}

export const AUDIT_LOG = Symbol('AUDIT_LOG');
