import { cardPersonalData } from '@cip/cards/domain';
import { CARDS_CONTROLLERS } from '@cip/cards/http';
import { cardPublicEvents, cardsProjection } from '@cip/cards/read-models';
import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { cardFulfilmentSaga } from './sagas/card-fulfilment.saga';
import { reissueCompletionSaga } from './sagas/reissue-completion.saga';
import { replacedCardSaga } from './sagas/replaced-card.saga';
import { userErasedCardsSaga } from './sagas/user-erased-cards.saga';
import {
  CARD_NETWORK_CONTRACTS,
  CARD_OPERATIONS_CONTRACTS,
  CARD_REVEAL_CONTRACTS,
  CARD_SANDBOX_CONTRACTS,
  CARDS_CONTRACTS,
  CardsModule,
} from './cards.module';
import { userStoppedCardsSaga } from './sagas/user-stopped-cards.saga';

/** The cards context, as the platform registry lists it. */
export const cardsContext: ContextDefinition = {
  name: 'cards',
  contracts: [
    ...CARDS_CONTRACTS,
    ...CARD_OPERATIONS_CONTRACTS,
    ...CARD_REVEAL_CONTRACTS,
    ...CARD_NETWORK_CONTRACTS,
    ...CARD_SANDBOX_CONTRACTS,
  ],
  module: CardsModule,
  readModels: [projectionReadModel(cardsProjection)],
  publicEvents: [cardPublicEvents],
  sagas: [
    userStoppedCardsSaga,
    cardFulfilmentSaga,
    replacedCardSaga,
    reissueCompletionSaga,
    userErasedCardsSaga,
  ],
  controllers: CARDS_CONTROLLERS,
  personalData: cardPersonalData,
};
