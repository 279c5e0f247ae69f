import { AUTHORIZATIONS_TOPIC, CARD_CURRENCY, type AuthorizationView } from '@cip/authorizations/contract';
import { authorizationEvents, usdUnits, type AuthorizationEvent } from '@cip/authorizations/domain';
import type { ProjectedEvent, Projection } from '@cip/shared/read-store';

// ---------------------------------------------------------------------------------------------------
// The `authorizations` read model: one document per authorization stream, as `GET /v1/authorizations/{id}`
// shows it (amounts in USD units, the API's convention), for the lists by card, user and status, the
// spend history of the card's controls and the expiry sweep. No PAN, CVV2 or PIN: the events carry none.
// ---------------------------------------------------------------------------------------------------

type Decided = Extract<AuthorizationEvent, { type: 'AuthorizationDecided' | 'AuthorizationForcePosted' }>;

function created(event: Decided, at: string): AuthorizationView {
  const { data } = event;
  const decided = event.type === 'AuthorizationDecided' ? event.data : null;
  return {
    id: data.authorizationId,
    distributorId: data.distributorId,
    cardId: data.cardId,
    userId: data.userId,
    walletId: data.walletId,
    type: decided?.type ?? 'payment',
    status: decided?.decision === 'rejected' ? 'rejected' : 'confirmed',
    decision: decided?.decision ?? 'confirmed',
    ...(decided?.declineReasonCode ? { declineReasonCode: decided.declineReasonCode } : {}),
    ...(decided?.declineDetail ? { declineDetail: decided.declineDetail } : {}),
    merchantName: data.merchant.name,
    merchantMcc: data.merchant.mcc,
    merchant: data.merchant,
    amount: usdUnits(data.amount),
    currency: CARD_CURRENCY,
    merchantAmount: data.merchantAmount,
    merchantCurrency: data.merchantCurrency,
    fee: data.fee,
    ...(decided ? { decidedAt: decided.decidedAt } : {}),
    clearedAmount: 0,
    reversedAmount: 0,
    expiresAt: decided?.expiresAt ?? null,
    originalAuthorizationId: decided?.originalAuthorizationId ?? null,
    advice: decided?.advice ?? null,
    decidedBy: decided?.decidedBy ?? 'platform',
    ...(decided?.threeDs ? { threeDs: decided.threeDs } : {}),
    createdAt: at,
    updatedAt: at,
  };
}

/** Folds one authorization event into its document (the statuses of the domain's `evolveAuthorization`). */
export function evolveAuthorizationView(
  doc: AuthorizationView | null,
  event: AuthorizationEvent,
  at: string,
): AuthorizationView | null {
  switch (event.type) {
    case 'AuthorizationDecided':
    case 'AuthorizationForcePosted':
      return doc ?? created(event, at);
    case 'AuthorizationCleared': {
      if (!doc) return null;
      const { clearedTotal, remaining } = event.data;
      return {
        ...doc,
        status: remaining > 0 ? 'partially_cleared' : 'cleared',
        clearedAmount: usdUnits(clearedTotal),
        expiresAt: remaining > 0 ? doc.expiresAt : null,
        updatedAt: at,
      };
    }
    case 'AuthorizationReversed': {
      if (!doc) return null;
      const { reversedTotal, remaining } = event.data;
      const status = remaining > 0 ? doc.status : doc.clearedAmount > 0 ? 'cleared' : 'reversed';
      return {
        ...doc,
        status,
        reversedAmount: usdUnits(reversedTotal),
        expiresAt: remaining > 0 ? doc.expiresAt : null,
        updatedAt: at,
      };
    }
    case 'AuthorizationExpired':
      if (!doc) return null;
      return {
        ...doc,
        status: doc.clearedAmount > 0 ? 'cleared' : 'expired',
        expiresAt: null,
        updatedAt: at,
      };
    case 'AuthorizationCreditRefused':
      // The ledger refused the refund's credit: nothing was credited, the refund is rejected.
      if (!doc) return null;
      return { ...doc, status: 'rejected', decision: 'rejected', declineReasonCode: 'other', updatedAt: at };
    case 'AuthorizationRefundReserved':
    case 'AuthorizationRefundReleased':
      // What the payment's refunds count against it: the refunds show themselves.
      return doc;
    case 'AuthorizationAbandoned':
      // A hold released because no decision was recorded: no authorization the distributor sees (a late
      // decision, declined, or a stand-in advice after it opens the document).
      return doc;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const authorizationsProjection: Projection<AuthorizationView> = {
  name: 'authorizations',
  collection: 'authorizations',
  topics: [AUTHORIZATIONS_TOPIC],
  // A card's window limits read its payments on every authorization of that card.
  indexes: ['cardId'],
  evolve(doc: AuthorizationView | null, event: ProjectedEvent): AuthorizationView | null {
    return evolveAuthorizationView(doc, authorizationEvents.read(event), event.metadata.occurredAt);
  },
};
