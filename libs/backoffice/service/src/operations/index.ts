import type { Provider } from '@nestjs/common';
import { OperatorActions } from './operator-actions';
import { OperatorQueries } from './operator-queries';
import { Tenants } from './tenants';

export * from './merged-pages';
export * from './operator-actions';
export * from './operator-queries';
export * from './tenants';

/** What the environment pages read and do, through the other contexts' contracts only. */
export const OPERATIONS_PROVIDERS: Provider[] = [Tenants, OperatorQueries, OperatorActions];
