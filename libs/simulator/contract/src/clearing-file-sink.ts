import { defineContext, type Environment } from '@cip/shared/contracts';
import type { ClearingFile } from './simulator.api';

/**
 * Where the network delivers its clearing files: the issuer side's clearing importer (the authorizations
 * context's `ClearingImport`) provides it under CLEARING_FILE_SINK. Importing the same `fileId` twice must
 * change nothing. Where it is not provided, the simulator only stores the files
 * (DATA_DIR/simulator/<environment>/clearing/) and clears nothing. It is a contract: in the split platform the
 * authorizations service serves it and the simulator service reaches it through its client.
 */
export interface ClearingFileSink {
  deliver(environment: Environment, file: ClearingFile): Promise<void>;
}

export const CLEARING_FILE_SINK = Symbol('CLEARING_FILE_SINK');

/** The clearing file sink on the transport (the authorizations context lists it among its contracts). */
export const clearingFileSinkContract = defineContext<ClearingFileSink>({
  name: 'clearing-file-sink',
  token: CLEARING_FILE_SINK,
  methods: { deliver: ['environment', 'file'] },
});
