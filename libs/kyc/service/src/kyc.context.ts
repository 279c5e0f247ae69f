import { kycPersonalData } from '@cip/kyc/domain';
import { KYC_CONTROLLERS } from '@cip/kyc/http';
import { kycLinkDeadlinesProjection, kycPublicEvents, kycsProjection } from '@cip/kyc/read-models';
import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { KYC_CONTRACTS, KycModule } from './kyc.module';
import { rfiOutcomesSaga } from './sagas/rfi-outcomes.saga';

/** The KYC context, as the platform registry lists it. */
export const kycContext: ContextDefinition = {
  name: 'kyc',
  contracts: KYC_CONTRACTS,
  module: KycModule,
  readModels: [projectionReadModel(kycsProjection), projectionReadModel(kycLinkDeadlinesProjection)],
  publicEvents: [kycPublicEvents],
  sagas: [rfiOutcomesSaga],
  controllers: KYC_CONTROLLERS,
  personalData: kycPersonalData,
};
