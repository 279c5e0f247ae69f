import { CARD_STATUS_EVENTS } from '@cip/cards/contract';
import { Environment } from '@cip/shared/contracts';
import { defineSaga } from '@cip/shared/infrastructure';
import { tokenRequested } from '@cip/tokenization/contract';
import { TokenizationService } from '../tokenization.service';

const EVENTS = [...CARD_STATUS_EVENTS, tokenRequested] as const;

/**
 * Issue 11: a card's digital-wallet tokens follow the card. A frozen card suspends them, an active card
 * (unfrozen, or activated) resumes them to where they were, a revoked card deletes them. Each token is
 * aligned with the card's status as it is now, read through the cards contract, so a redelivered event,
 * or one delivered after the card changed again, changes nothing. A new token (`tokenRequested`) is aligned
 * the same way: one recorded just as its card was frozen (the card read as active a moment before, the
 * freeze handled before the token existed) is suspended all the same.
 */
export const cardStatusTokensSaga = defineSaga<typeof EVENTS, [TokenizationService]>({
  group: 'saga.tokenization-card-status',
  on: EVENTS,
  inject: [TokenizationService],
  async handle([tokenization], event, ports) {
    await tokenization.followCard(ports.scope as Environment, {
      distributorId: event.metadata.distributorId ?? '',
      cardId: event.data.cardId,
      correlationId: event.metadata.correlationId ?? event.metadata.eventId,
      causationId: event.metadata.eventId,
    });
  },
});
