import { AuthorizationDecisioningController } from './authorization-decisioning.controller';
import { AuthorizationsController } from './authorizations.controller';

export * from './authorizations.controller';
export * from './authorizations.dto';
export * from './authorization-decisioning.controller';
export * from './authorization-decisioning.dto';

export const AUTHORIZATIONS_CONTROLLERS = [AuthorizationsController, AuthorizationDecisioningController];
