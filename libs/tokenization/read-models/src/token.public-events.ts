import type { PublicEventDraft, PublicEventMapper } from '@cip/shared/read-store';
import { TOKENIZATION_TOPIC, type TokenView } from '@cip/tokenization/contract';
import { tokenEvents } from '@cip/tokenization/domain';
import { tokensProjection } from './tokens.projection';

/**
 * Token domain events -> public `cardTokenization.*` Events (spec part 6, "Tokenization events"): the token
 * snapshot as data, plus the spec's fields. A token's suspension and deletion have no Event in the spec:
 * `GET /v1/cards/{id}/tokens` shows them, and `card.frozen` / `card.revoked` announce their cause.
 */
export const tokenPublicEvents: PublicEventMapper<TokenView> = {
  topic: TOKENIZATION_TOPIC,
  snapshot: tokensProjection,
  toPublicEvents(recorded, snapshot): PublicEventDraft[] {
    const event = tokenEvents.read(recorded);
    if (!snapshot) return [];
    const base = { eventTargetId: snapshot.id, userId: snapshot.userId };
    const common = {
      cardId: snapshot.cardId,
      // The name the token service shows the user for the issuer: none configured yet (the spec allows null).
      consumerFacingEntityName: null,
      digitalWalletName: snapshot.digitalWalletName,
    };
    switch (event.type) {
      case 'TokenActivationCodeDelivered': {
        const { activationMethod, activationCode, emailAddress, phone } = event.data;
        return [
          {
            ...base,
            eventName: 'cardTokenization.deliverActivationCode',
            fields: {
              ...common,
              activationMethod,
              activationCode,
              ...(activationMethod === 'email'
                ? { emailAddress: emailAddress ?? null }
                : { phone: phone ?? null }),
            },
          },
        ];
      }
      case 'TokenActivated':
        return [{ ...base, eventName: 'cardTokenization.activated', fields: common }];
      case 'TokenRequested':
      case 'TokenSuspended':
      case 'TokenResumed':
      case 'TokenDeleted':
        return [];
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
};
