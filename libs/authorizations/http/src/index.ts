import { AuthorizationsController } from './authorizations.controller';

export * from './authorizations.controller';
export * from './authorizations.dto';

export const AUTHORIZATIONS_CONTROLLERS = [AuthorizationsController];
