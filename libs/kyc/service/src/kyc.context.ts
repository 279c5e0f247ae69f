import { kycLinkDeadlinesProjection, kycPublicEvents, kycsProjection } from '@cip/kyc/read-models';
import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { KycModule } from './kyc.module';
import { rfiOutcomesSaga } from './sagas/rfi-outcomes.saga';

/** The KYC context, as the platform registry lists it. */
export const kycContext: ContextDefinition = {
  name: 'kyc',
  contracts: [],
  module: KycModule,
  readModels: [projectionReadModel(kycsProjection), projectionReadModel(kycLinkDeadlinesProjection)],
  publicEvents: [kycPublicEvents],
  sagas: [rfiOutcomesSaga],
  // Still mounted by the gateway lib until they move into libs/kyc/http (with the KYC contract).
  controllers: [],
};
