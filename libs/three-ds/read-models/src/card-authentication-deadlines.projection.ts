import type { ProjectedEvent, Projection, ReadDocument } from '@cip/shared/read-store';
import { THREE_DS_TOPIC } from '@cip/three-ds/contract';
import { cardAuthenticationEvents } from '@cip/three-ds/domain';

/** A pending challenge's deadline. */
export interface CardAuthenticationDeadline extends ReadDocument {
  expiresAt: string;
}

/**
 * The pending challenges, for the fail-closed sweep: a document exists only while a challenge awaits the
 * distributor's answer, so the sweep's read (`ReadStore.expiredBy`, by `expiresAt`) never meets a decided
 * one. `card_authentications` keeps `expiresAt` on every challenge for the API; reading deadlines there
 * would cost every sweep the whole history. Deadlines differ by program, so creation order is not their
 * order. Kept in the read store, so a restart loses no deadline.
 */
export const cardAuthenticationDeadlinesProjection: Projection<CardAuthenticationDeadline> = {
  name: 'card-authentication-deadlines',
  collection: 'card_authentication_deadlines',
  topics: [THREE_DS_TOPIC],
  evolve(
    doc: CardAuthenticationDeadline | null,
    recorded: ProjectedEvent,
  ): CardAuthenticationDeadline | null {
    const event = cardAuthenticationEvents.read(recorded);
    switch (event.type) {
      case 'CardAuthenticationChallenged': {
        const { cardAuthenticationId, expiresAt, createdAt } = event.data;
        return { id: cardAuthenticationId, expiresAt, createdAt, updatedAt: createdAt };
      }
      case 'CardAuthenticationDecided':
        return null;
      case 'CardAuthenticationResultNotified':
        return doc;
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
};
