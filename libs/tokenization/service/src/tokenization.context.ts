import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { tokenPersonalData } from '@cip/tokenization/domain';
import { TOKENIZATION_CONTROLLERS } from '@cip/tokenization/http';
import { tokenPublicEvents, tokensProjection } from '@cip/tokenization/read-models';
import { cardStatusTokensSaga } from './sagas/card-status-tokens.saga';
import { TOKENIZATION_CONTRACTS, TokenizationModule } from './tokenization.module';

/** The tokenization context, as the platform registry lists it. */
export const tokenizationContext: ContextDefinition = {
  name: 'tokenization',
  contracts: TOKENIZATION_CONTRACTS,
  module: TokenizationModule,
  readModels: [projectionReadModel(tokensProjection)],
  publicEvents: [tokenPublicEvents],
  sagas: [cardStatusTokensSaga],
  controllers: TOKENIZATION_CONTROLLERS,
  personalData: tokenPersonalData,
};
