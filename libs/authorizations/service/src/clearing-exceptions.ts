import {
  type ClearingException,
  clearingExceptionDecider,
  clearingExceptionStreamId,
} from '@cip/authorizations/domain';
import { clearingExceptionsProjection, type ClearingExceptionView } from '@cip/authorizations/read-models';
import type { Environment, FindResult } from '@cip/shared/contracts';
import { type EventStore, handleCommand } from '@cip/shared/eventing';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock } from '@cip/shared/runtime';

export interface ClearingExceptionQuery {
  /** Only the lines of this clearing file. */
  fileId?: string;
  /** Newest first; 1..100. */
  limit: number;
  page: number;
}

/**
 * The clearing lines that could not apply, recorded durably (one `clx-` stream per line: importing the file
 * again records nothing twice) and listed from their read model for operators.
 */
export class ClearingExceptions {
  constructor(
    private readonly stores: {
      eventStore(environment: Environment): EventStore;
      readStore(environment: Environment): ReadStore;
    },
    private readonly clock: Clock,
  ) {}

  async record(environment: Environment, exception: ClearingException): Promise<void> {
    const now = this.clock.now().toISOString();
    await handleCommand(
      this.stores.eventStore(environment),
      clearingExceptionDecider,
      clearingExceptionStreamId(exception.fileId, exception.sequence),
      { type: 'RecordClearingException', data: { exception, now } },
      { occurredAt: now, environment, correlationId: `clearing:${exception.fileId}` },
    );
  }

  /** As projected: the platform's consumers keep the read model current while it runs. */
  list(environment: Environment, query: ClearingExceptionQuery): Promise<FindResult<ClearingExceptionView>> {
    return this.stores
      .readStore(environment)
      .find<ClearingExceptionView>(clearingExceptionsProjection.collection, {
        filter: query.fileId ? { fileId: query.fileId } : {},
        sort: { field: 'createdAt', direction: 'desc' },
        page: query.page,
        limit: query.limit,
      });
  }
}
