import { CARDS_TOPIC } from '@cip/cards/contract';
import type { CardActivated, CardCreated } from '@cip/cards/domain';
import { integrationEvent, type IntegrationEvent } from '@cip/shared/contracts';

// The cards context's own events its sagas react to (not published: no other context needs them yet).

export const cardCreated = integrationEvent<IntegrationEvent<'CardCreated', CardCreated['data']>>(
  CARDS_TOPIC,
  'CardCreated',
);

export const cardActivated = integrationEvent<IntegrationEvent<'CardActivated', CardActivated['data']>>(
  CARDS_TOPIC,
  'CardActivated',
);

/** What a saga's command is traced to: the card event it reacts to. */
export const triggerOf = (event: IntegrationEvent) => ({
  distributorId: event.metadata.distributorId ?? '',
  correlationId: event.metadata.correlationId ?? event.metadata.eventId,
  causationId: event.metadata.eventId,
});
