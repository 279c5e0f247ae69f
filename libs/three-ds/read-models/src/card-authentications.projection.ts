import type { ProjectedEvent, Projection } from '@cip/shared/read-store';
import { THREE_DS_TOPIC, type CardAuthenticationView } from '@cip/three-ds/contract';
import {
  cardAuthenticationEvents,
  evolveCardAuthentication,
  isCardAuthentication,
  type CardAuthenticationRecord,
} from '@cip/three-ds/domain';

/** The view of a card authentication; internal fields (the EMV transaction, the cryptogram) stay out. */
export const toCardAuthenticationView = (record: CardAuthenticationRecord): CardAuthenticationView => ({
  id: record.cardAuthenticationId,
  distributorId: record.distributorId,
  userId: record.userId,
  cardId: record.cardId,
  walletId: record.walletId,
  walletAddress: record.walletAddress,
  purpose: record.purpose,
  merchantName: record.merchantName,
  maskedPan: record.maskedPan,
  merchantAmount: record.merchantAmount,
  merchantCurrency: record.merchantCurrency,
  threedsRequestorAppUrl: record.threedsRequestorAppUrl,
  status: record.status,
  expiresAt: record.expiresAt,
  result: record.decision
    ? {
        transStatus: record.decision.transStatus,
        transStatusReason: record.decision.transStatusReason,
        notifiedAt: record.notifiedAt,
      }
    : null,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
});

/**
 * The `card_authentications` read model: one document per challenge, for the API and the frictionless
 * rule's known merchants (`cardId`, `merchantName`, `status`). The sweep reads its own read model
 * (`card_authentication_deadlines`). Folded on
 * the view itself (the view is what Events carry, so nothing internal may sit in it).
 */
export const cardAuthenticationsProjection: Projection<CardAuthenticationView> = {
  name: 'card-authentications',
  collection: 'card_authentications',
  topics: [THREE_DS_TOPIC],
  // The frictionless rule asks, on a low-value AReq, whether the card's holder approved this merchant before.
  indexes: ['cardId'],
  evolve(doc: CardAuthenticationView | null, recorded: ProjectedEvent): CardAuthenticationView | null {
    const event = cardAuthenticationEvents.read(recorded);
    if (event.type === 'CardAuthenticationChallenged') {
      const state = evolveCardAuthentication({ status: 'absent' }, event);
      return isCardAuthentication(state) ? toCardAuthenticationView(state) : null;
    }
    if (!doc) return null;
    switch (event.type) {
      case 'CardAuthenticationDecided':
        return {
          ...doc,
          status: event.data.outcome,
          result: {
            transStatus: event.data.transStatus,
            transStatusReason: event.data.transStatusReason,
            notifiedAt: null,
          },
          updatedAt: event.data.at,
        };
      case 'CardAuthenticationResultNotified':
        return doc.result
          ? { ...doc, result: { ...doc.result, notifiedAt: event.data.at }, updatedAt: event.data.at }
          : doc;
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
};
