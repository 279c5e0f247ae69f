import { kycEvents, type KycEvent } from '@cip/kyc/domain';
import type { PublicEventDraft, PublicEventMapper } from '@cip/shared/read-store';
import type { KycView } from './kyc-view';
import { kycsProjection } from './kycs.projection';

const EVENT_NAMES = {
  KycCreated: 'kyc.created',
  KycPending: 'kyc.pending',
  // A resumed KYC is pending again, with a new link.
  KycResumed: 'kyc.pending',
  KycCompleted: 'kyc.completed',
  KycVerified: 'kyc.verified',
  KycDeclined: 'kyc.declined',
  KycFailed: 'kyc.failed',
  KycExpired: 'kyc.expired',
  KycRevoked: 'kyc.revoked',
} as const satisfies Record<KycEvent['type'], string>;

/**
 * KYC domain events -> public `kyc.*` Events (spec part 6, "KYC events"). Every Event carries the KYC
 * snapshot, hence `type`, `status` and (on an rfi) `rfiSubtype`; the event-specific fields are named
 * again explicitly. The link itself is never in an Event: the client retrieves the KYC to get it.
 */
export const kycPublicEvents: PublicEventMapper<KycView> = {
  topic: 'kyc',
  snapshot: kycsProjection,
  toPublicEvents(recorded, snapshot): PublicEventDraft[] {
    const event = kycEvents.read(recorded);
    const userId = snapshot?.userId;
    const draft: PublicEventDraft = {
      eventName: EVENT_NAMES[event.type],
      eventTargetId: event.data.kycId,
      userId,
    };
    switch (event.type) {
      case 'KycCreated':
        return [{ ...draft, fields: { provider: event.data.provider, referenceId: event.data.referenceId } }];
      case 'KycVerified':
        return [
          {
            ...draft,
            fields: {
              userActivated: event.data.userActivated,
              ...(event.data.userNotActivatedReason
                ? { userNotActivatedReason: event.data.userNotActivatedReason }
                : {}),
            },
          },
        ];
      case 'KycDeclined':
        return [
          { ...draft, fields: event.data.declinedCode ? { declinedCode: event.data.declinedCode } : {} },
        ];
      default:
        return [draft];
    }
  },
};
