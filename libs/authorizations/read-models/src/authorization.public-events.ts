import { AUTHORIZATIONS_TOPIC, type AuthorizationView } from '@cip/authorizations/contract';
import { authorizationEvents, usdUnits } from '@cip/authorizations/domain';
import type { PublicEventDraft, PublicEventMapper } from '@cip/shared/read-store';
import { authorizationsProjection } from './authorizations.projection';

/**
 * Authorization domain events -> public `cardAuthorization.*` Events (spec part 6, API-DECISIONS
 * "Authorizations"): the authorization as data (every spec field: cardId, merchantName, merchantMcc,
 * amount, currency, merchantAmount, merchantCurrency, merchant, type, fee, decidedAt, declineReasonCode when
 * rejected), plus what the occurrence moved. `confirmed` / `rejected` at the decision (the onboarding
 * flow's `cardAuthorization.approved` names the same occurrence and is not sent twice), `cleared` per
 * clearing, `reversed` per reversal, `expired` when the hold lapsed. A force post announces itself by its
 * `cleared`. The wallet's own `balance.updated` follows each of them; a rejection moves nothing on the wallet,
 * so its `balance.updated` (the wallet as it stood at the decline) is produced here, right after it.
 */
export const authorizationPublicEvents: PublicEventMapper<AuthorizationView> = {
  topic: AUTHORIZATIONS_TOPIC,
  snapshot: authorizationsProjection,
  toPublicEvents(recorded, snapshot): PublicEventDraft[] {
    if (!snapshot) return [];
    const event = authorizationEvents.read(recorded);
    const base = { eventTargetId: snapshot.id, userId: snapshot.userId };
    // A decline (or a refused credit) moves no money, so the wallet emits nothing: the promised
    // `balance.updated` follows from here, with the wallet as it stood at this event.
    const balanceNow: PublicEventDraft = {
      eventName: 'balance.updated',
      eventTargetId: snapshot.walletId,
      userId: snapshot.userId,
      snapshotOf: snapshot.walletId,
    };
    switch (event.type) {
      case 'AuthorizationDecided':
        // A refund is announced once the wallet took its credit (its Cleared), never before: no Event claims
        // a credit the ledger may still refuse.
        if (event.data.type === 'refund' && event.data.decision === 'confirmed') return [];
        if (event.data.decision === 'rejected')
          return [{ ...base, eventName: 'cardAuthorization.rejected' }, balanceNow];
        return [{ ...base, eventName: 'cardAuthorization.confirmed' }];
      case 'AuthorizationCleared': {
        const cleared: PublicEventDraft = {
          ...base,
          eventName: 'cardAuthorization.cleared',
          fields: { clearingAmount: usdUnits(event.data.amount), at: event.data.at },
        };
        // A refund's credit was posted on the wallet just before this (its balance.updated came first): the
        // promised balance.updated follows its Events too, the wallet as it stands here.
        return snapshot.type === 'refund'
          ? [{ ...base, eventName: 'cardAuthorization.confirmed' }, cleared, balanceNow]
          : [cleared];
      }
      case 'AuthorizationCreditRefused':
        return [{ ...base, eventName: 'cardAuthorization.rejected' }, balanceNow];
      case 'AuthorizationRefundReserved':
      case 'AuthorizationRefundReleased':
        return [];
      case 'AuthorizationReversed':
        return [
          {
            ...base,
            eventName: 'cardAuthorization.reversed',
            fields: { reversalAmount: usdUnits(event.data.amount), at: event.data.at },
          },
        ];
      case 'AuthorizationExpired':
        return [
          {
            ...base,
            eventName: 'cardAuthorization.expired',
            fields: { expiredAmount: usdUnits(event.data.amount), at: event.data.at },
          },
        ];
      case 'AuthorizationForcePosted':
      case 'AuthorizationAbandoned':
        return [];
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
};
