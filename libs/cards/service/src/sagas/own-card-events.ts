import { CARDS_TOPIC } from '@cip/cards/contract';
import type { CardCreated, CardReplaced } from '@cip/cards/domain';
import { integrationEvent, type IntegrationEvent } from '@cip/shared/contracts';

// The cards context's own events its sagas react to (not published: no other context needs them yet).
// Its status changes are published in the contract (`cardActivated`, ...).

export const cardCreated = integrationEvent<IntegrationEvent<'CardCreated', CardCreated['data']>>(
  CARDS_TOPIC,
  'CardCreated',
);

export const cardReplaced = integrationEvent<IntegrationEvent<'CardReplaced', CardReplaced['data']>>(
  CARDS_TOPIC,
  'CardReplaced',
);

/** What a saga's command is traced to: the card event it reacts to. */
export const triggerOf = (event: IntegrationEvent) => ({
  distributorId: event.metadata.distributorId ?? '',
  correlationId: event.metadata.correlationId ?? event.metadata.eventId,
  causationId: event.metadata.eventId,
});
