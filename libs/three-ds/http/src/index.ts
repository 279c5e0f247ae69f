import { AcsController } from './acs.controller';
import { ThreeDsController } from './three-ds.controller';

export * from './acs.controller';
export * from './three-ds.controller';
export * from './three-ds.dto';

/** The 3DS context's HTTP surface: the distributor API (`/v1/3ds`) and the ACS at the 3DS host. */
export const THREE_DS_CONTROLLERS = [ThreeDsController, AcsController];
