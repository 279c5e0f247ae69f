import {
  CLEARING_EXCEPTIONS_TOPIC,
  type ClearingException,
  clearingExceptionEvents,
} from '@cip/authorizations/domain';
import type { ProjectedEvent, Projection } from '@cip/shared/read-store';

/** A clearing exception as operators list it: the file line, why it could not apply, when it was recorded. */
export interface ClearingExceptionView extends ClearingException {
  /** The exception's stream (`clx-<fileId>-<sequence>`). */
  id: string;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/**
 * The `clearing_exceptions` read model: one document per clearing file line that could not apply, for
 * `npm run cli -- authorizations clearing-exceptions`. Operator data only: no API serves it.
 */
export const clearingExceptionsProjection: Projection<ClearingExceptionView> = {
  name: 'clearing_exceptions',
  collection: 'clearing_exceptions',
  topics: [CLEARING_EXCEPTIONS_TOPIC],
  evolve(doc: ClearingExceptionView | null, event: ProjectedEvent): ClearingExceptionView | null {
    const { type, data } = clearingExceptionEvents.read(event);
    if (type !== 'ClearingExceptionRecorded') return doc;
    const { recordedAt, ...exception } = data;
    return doc ?? { id: event.streamId, ...exception, createdAt: recordedAt, updatedAt: recordedAt };
  },
};
