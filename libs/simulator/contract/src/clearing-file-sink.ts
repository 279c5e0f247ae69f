import { defineContext, type Environment } from '@cip/shared/contracts';
import type { ClearingFile, ClearingPresentment } from './simulator.api';

/**
 * Where the network delivers its clearing files: the issuer side's clearing importer (the authorizations
 * context's `ClearingImport`) provides it under CLEARING_FILE_SINK. Importing the same `fileId` twice must
 * change nothing. Where it is not provided, the simulator only stores the files
 * (DATA_DIR/simulator/<environment>/clearing/) and clears nothing. It is a contract: in the split platform the
 * authorizations service serves it and the simulator service reaches it through its client.
 */
export interface ClearingFileSink {
  deliver(environment: Environment, file: ClearingFile): Promise<void>;
  /**
   * Whether the issuer's authorization can still take a presentment at all: throws the DomainError saying
   * why not (`not_found`; `invalid_state_transition`: cleared, reversed, declined, a refund, expired with
   * nothing left to clear). The amount is not checked: a presentment beyond what may still clear is a real
   * over-presentment, its file's line, and an operator exception. The sandbox asks before it cuts a file (a
   * file is a batch: its importer cannot answer per line); force posts are not checked.
   */
  checkPresentment(environment: Environment, presentment: ClearingPresentment): Promise<void>;
}

export const CLEARING_FILE_SINK = Symbol('CLEARING_FILE_SINK');

/** The clearing file sink on the transport (the authorizations context lists it among its contracts). */
export const clearingFileSinkContract = defineContext<ClearingFileSink>({
  name: 'clearing-file-sink',
  token: CLEARING_FILE_SINK,
  methods: { deliver: ['environment', 'file'], checkPresentment: ['environment', 'presentment'] },
});
