import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { THREE_DS_CONTROLLERS } from '@cip/three-ds/http';
import {
  cardAuthenticationDeadlinesProjection,
  cardAuthenticationPublicEvents,
  cardAuthenticationsProjection,
} from '@cip/three-ds/read-models';
import { cardAuthenticationResultsSaga } from './sagas/card-authentication-results.saga';
import { THREE_DS_CONTRACTS, ThreeDsModule } from './three-ds.module';

/** The 3-D Secure context, as the platform registry lists it. */
export const threeDsContext: ContextDefinition = {
  name: 'three-ds',
  contracts: THREE_DS_CONTRACTS,
  module: ThreeDsModule,
  readModels: [
    projectionReadModel(cardAuthenticationsProjection),
    projectionReadModel(cardAuthenticationDeadlinesProjection),
  ],
  publicEvents: [cardAuthenticationPublicEvents],
  sagas: [cardAuthenticationResultsSaga],
  controllers: THREE_DS_CONTROLLERS,
};
