import type { Environment } from '@cip/shared/contracts';
import { defineSaga } from '@cip/shared/infrastructure';
import { CardsService } from '../cards.service';
import { cardActivated } from '@cip/cards/contract';
import { cardCreated, triggerOf } from './own-card-events';

/**
 * Issue 11, reissue: a damaged or expired card keeps working until its replacement is active, then it is
 * revoked. A virtual replacement is active at creation, a physical one once activated. The reissue call
 * retires a virtual replacement's card itself; this saga makes sure of it after a crash, and is the one
 * that acts on a physical replacement's activation. Keyed by the replacement: applied once per card.
 */
export const replacedCardSaga = defineSaga<[typeof cardCreated, typeof cardActivated], [CardsService]>({
  group: 'saga.cards-replaced',
  on: [cardCreated, cardActivated],
  inject: [CardsService],
  async handle([cards], event, ports) {
    if (cardCreated.is(event) && !event.data.replacesCardId) return;
    await cards.retireReplacedCard(ports.scope as Environment, event.data.cardId, triggerOf(event));
  },
});
