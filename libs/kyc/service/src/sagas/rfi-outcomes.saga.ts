import { kycDeclined, kycExpired } from '@cip/kyc/contract';
import { isKyc, kycDecider } from '@cip/kyc/domain';
import { Environment } from '@cip/shared/contracts';
import { loadState } from '@cip/shared/eventing';
import { defineSaga } from '@cip/shared/infrastructure';
import { kycEffectCause, KYC_USER_DIRECTORY, KycUserDirectory } from '../kyc.ports';

/**
 * Spec part 1, fact 5: an RFI does not block the user while it is open; once it is declined or expires
 * unanswered, an active user is frozen (`user.frozen`) until support clears it. The freeze is keyed by
 * its cause (the KYC and its outcome), so a redelivered event changes nothing: not while the user is
 * frozen, and not once support has unfrozen it (the users context has already applied that cause).
 */
export const rfiOutcomesSaga = defineSaga<
  readonly [typeof kycDeclined, typeof kycExpired],
  [KycUserDirectory]
>({
  group: 'saga.kyc-rfi-outcomes',
  on: [kycDeclined, kycExpired],
  inject: [KYC_USER_DIRECTORY],
  async handle([users], event, ports) {
    const { state } = await loadState(ports.eventStore, kycDecider, event.data.kycId);
    if (!isKyc(state) || state.type !== 'rfi') return;
    const scope = {
      distributorId: state.distributorId,
      environment: ports.scope as Environment,
      requestId: event.metadata.correlationId ?? event.metadata.eventId,
    };
    const user = await users.findUser(scope, state.userId);
    if (user?.status !== 'active') return;
    const declined = kycDeclined.is(event);
    const reason = `RFI ${state.kycId} ${declined ? 'declined' : 'expired unanswered'}`;
    const cause = kycEffectCause(state.kycId, declined ? 'declined' : 'expired');
    await users.freezeUser(scope, state.userId, reason, cause);
  },
});
