import type { Environment } from '@cip/shared/contracts';
import { defineSaga } from '@cip/shared/infrastructure';
import { CardsService } from '../cards.service';
import { cardCreated, triggerOf } from './own-card-events';

/** The consumer group of the saga (the simulated shipping notice waits for it). */
export const CARD_FULFILMENT_GROUP = 'saga.cards-fulfilment';

/**
 * Issue 11: a physical card recorded is ordered from the card bureau (the fulfilment provider) to be
 * printed and shipped to the address it was created with. Ordering after the append, from the log, means
 * a crash between the two loses nothing: the event is delivered again and the order placed then. The
 * provider is idempotent by card id and the card records its order once, so a redelivery orders nothing twice.
 */
export const cardFulfilmentSaga = defineSaga<[typeof cardCreated], [CardsService]>({
  group: CARD_FULFILMENT_GROUP,
  on: [cardCreated],
  inject: [CardsService],
  async handle([cards], event, ports) {
    if (event.data.type !== 'physical') return;
    await cards.orderFulfilment(ports.scope as Environment, event.data.cardId, triggerOf(event));
  },
});
