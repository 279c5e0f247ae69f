import type { Environment } from '@cip/shared/contracts';
import type { ClearingFile } from './simulator.api';

/**
 * Where the network delivers its clearing files: the issuer side's clearing importer (the authorizations
 * context's `ClearingImport`) provides it under CLEARING_FILE_SINK. Importing the same `fileId` twice must
 * change nothing. Where it is not provided, the simulator only stores the files
 * (DATA_DIR/simulator/<environment>/clearing/) and clears nothing.
 */
export interface ClearingFileSink {
  deliver(environment: Environment, file: ClearingFile): Promise<void>;
}

export const CLEARING_FILE_SINK = Symbol('CLEARING_FILE_SINK');
