import { AUTHORIZATIONS_CONTROLLERS } from '@cip/authorizations/http';
import {
  authorizationPublicEvents,
  authorizationsProjection,
  clearingExceptionsProjection,
} from '@cip/authorizations/read-models';
import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { authorizationLedgerSaga } from './authorization-ledger.saga';
import { AUTHORIZATIONS_CONTRACTS, AuthorizationsModule } from './authorizations.module';

/** The authorizations context, as the platform registry lists it. */
export const authorizationsContext: ContextDefinition = {
  name: 'authorizations',
  contracts: AUTHORIZATIONS_CONTRACTS,
  module: AuthorizationsModule,
  readModels: [
    projectionReadModel(authorizationsProjection),
    projectionReadModel(clearingExceptionsProjection),
  ],
  publicEvents: [authorizationPublicEvents],
  sagas: [authorizationLedgerSaga],
  controllers: AUTHORIZATIONS_CONTROLLERS,
};
