import { isKyc, KycEvent, kycDecider } from '@cip/kyc/domain';
import { Environment } from '@cip/shared/contracts';
import { loadState } from '@cip/shared/eventing';
import type { ConsumerDefinition } from '@cip/shared/infrastructure';
import { kycEffectCause, KycUserDirectory } from './kyc.ports';

/**
 * Spec part 1, fact 5: an RFI does not block the user while it is open; once it is declined or expires
 * unanswered, an active user is frozen (`user.frozen`) until support clears it. The freeze is keyed by
 * its cause (the KYC and its outcome), so a redelivered event changes nothing: not while the user is
 * frozen, and not once support has unfrozen it (the users context has already applied that cause).
 */
export function rfiOutcomesSaga(users: KycUserDirectory): ConsumerDefinition {
  return {
    group: 'saga.kyc-rfi-outcomes',
    topics: ['kyc'],
    scopes: ['sandbox', 'production'],
    async handle(ports, messages) {
      for (const { event: recorded } of messages) {
        const event = recorded as unknown as KycEvent;
        if (event.type !== 'KycDeclined' && event.type !== 'KycExpired') continue;
        const { state } = await loadState(ports.eventStore, kycDecider, event.data.kycId);
        if (!isKyc(state) || state.type !== 'rfi') continue;
        const scope = {
          distributorId: state.distributorId,
          environment: ports.scope as Environment,
          requestId: recorded.metadata.correlationId ?? recorded.metadata.eventId,
        };
        const user = await users.findUser(scope, state.userId);
        if (user?.status !== 'active') continue;
        const declined = event.type === 'KycDeclined';
        const reason = `RFI ${state.kycId} ${declined ? 'declined' : 'expired unanswered'}`;
        const cause = kycEffectCause(state.kycId, declined ? 'declined' : 'expired');
        await users.freezeUser(scope, state.userId, reason, cause);
      }
    },
  };
}
