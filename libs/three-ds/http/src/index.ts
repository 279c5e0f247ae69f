import { AcsController } from './acs.controller';
import { ChallengePageController } from './challenge-page.controller';
import { ThreeDsController } from './three-ds.controller';

export * from './acs.controller';
export * from './challenge-page.controller';
export * from './three-ds.controller';
export * from './three-ds.dto';

/** The 3DS context's HTTP surface: the distributor API (`/v1/3ds`), the ACS at the 3DS host, the challenge page. */
export const THREE_DS_CONTROLLERS = [ThreeDsController, AcsController, ChallengePageController];
