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
    switch (event.type) {
      case 'AuthorizationDecided':
        if (event.data.decision === 'rejected') {
          // A decline moves no money, so the wallet emits nothing: the promised `balance.updated` follows
          // from here, with the wallet as it stood at the decline.
          return [
            { ...base, eventName: 'cardAuthorization.rejected' },
            {
              eventName: 'balance.updated',
              eventTargetId: snapshot.walletId,
              userId: snapshot.userId,
              snapshotOf: snapshot.walletId,
            },
          ];
        }
        return [{ ...base, eventName: 'cardAuthorization.confirmed' }];
      case 'AuthorizationCleared':
        return [
          {
            ...base,
            eventName: 'cardAuthorization.cleared',
            fields: { clearingAmount: usdUnits(event.data.amount), at: event.data.at },
          },
        ];
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
        return [];
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
};
