import {
  kycContract,
  kycHostedPagesContract,
  kycOperatorContract,
  kycSimulationContract,
} from '@cip/kyc/contract';
import { KYC_CONTROLLERS } from '@cip/kyc/http';
import { kycLinkDeadlinesProjection, kycPublicEvents, kycsProjection } from '@cip/kyc/read-models';
import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { KycModule } from './kyc.module';
import { rfiOutcomesSaga } from './sagas/rfi-outcomes.saga';

/** The KYC context, as the platform registry lists it. */
export const kycContext: ContextDefinition = {
  name: 'kyc',
  contracts: [kycContract, kycOperatorContract, kycSimulationContract, kycHostedPagesContract],
  module: KycModule,
  readModels: [projectionReadModel(kycsProjection), projectionReadModel(kycLinkDeadlinesProjection)],
  publicEvents: [kycPublicEvents],
  sagas: [rfiOutcomesSaga],
  controllers: KYC_CONTROLLERS,
};
