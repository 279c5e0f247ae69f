import type { Environment } from '@cip/shared/contracts';
import { defineSaga } from '@cip/shared/infrastructure';
import { userErased } from '@cip/users/contract';
import { CardsService } from '../cards.service';

/**
 * A user's erasure reaches their physical cards' shipping address: sealed with the user's key in the card's
 * events, it reads as null once the key is deleted, and this saga records the erasure on each card so the
 * cards read model drops its copy at once (a rebuild would too). Keyed by the erasure event: applied once.
 */
export const userErasedCardsSaga = defineSaga<[typeof userErased], [CardsService]>({
  group: 'saga.cards-user-erased',
  on: [userErased],
  inject: [CardsService],
  async handle([cards], event, ports) {
    await cards.eraseShippingAddresses(ports.scope as Environment, event.data.userId, {
      distributorId: event.metadata.distributorId ?? '',
      correlationId: event.metadata.correlationId ?? event.metadata.eventId,
      causationId: `user:${event.metadata.eventId}`,
    });
  },
});
