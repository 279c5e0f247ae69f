import type { Provider } from '@nestjs/common';
import { AUDIT_LOG } from '@cip/backoffice/contract';
import { AuditTrailService } from '../audit/audit-trail.service';
import { OperatorActions } from './operator-actions';
import { OperatorQueries } from './operator-queries';
import { Tenants } from './tenants';

export * from './merged-pages';
export * from './operator-actions';
export * from './operator-queries';
export * from './tenants';

/** What the environment pages read and do, through the other contexts' contracts only. */
export const OPERATIONS_PROVIDERS: Provider[] = [
  Tenants,
  OperatorQueries,
  OperatorActions,
  // The timelines read the audit trail's entries on a user or card through the AuditLog port.
  { provide: AUDIT_LOG, useExisting: AuditTrailService },
];
