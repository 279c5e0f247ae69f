import type { PublicEventDraft, PublicEventMapper } from '@cip/shared/read-store';
import { THREE_DS_TOPIC, type CardAuthenticationView } from '@cip/three-ds/contract';
import { cardAuthenticationEvents } from '@cip/three-ds/domain';
import { cardAuthenticationsProjection } from './card-authentications.projection';

/**
 * Card authentication domain events -> public `cardAuthentication.*` Events: the authentication as data
 * (every field spec part 6 lists for `cardAuthentication.created`, plus `id` and `expiresAt`). The webhook
 * dispatcher delivers `cardAuthentication.created` on its express lane.
 */
export const cardAuthenticationPublicEvents: PublicEventMapper<CardAuthenticationView> = {
  topic: THREE_DS_TOPIC,
  snapshot: cardAuthenticationsProjection,
  toPublicEvents(recorded, snapshot): PublicEventDraft[] {
    const event = cardAuthenticationEvents.read(recorded);
    if (!snapshot) return [];
    const base = { eventTargetId: snapshot.id, userId: snapshot.userId };
    switch (event.type) {
      case 'CardAuthenticationChallenged':
        return [{ ...base, eventName: 'cardAuthentication.created' }];
      case 'CardAuthenticationDecided':
        return [{ ...base, eventName: `cardAuthentication.${event.data.outcome}` }];
      case 'CardAuthenticationResultNotified':
        return [];
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
};
