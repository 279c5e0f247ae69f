import { Caller, DomainError, Environment } from '@cip/shared/contracts';
import { handleCommand, loadState } from '@cip/shared/eventing';
import type { KycResource, SimulatedOutcome } from '@cip/kyc/contract';
import {
  approvalOf,
  needsDeclineHistory,
  DeclinedCode,
  decideKyc,
  IDENTITY_KYC_TYPES,
  isKyc,
  kycDecider,
  KycRecord,
  KycSubmission,
  PostalAddress,
} from '@cip/kyc/domain';
import { kycEffectCause, KycScope, KycUserFacts } from '../kyc.ports';
import type { KycRecords } from './kyc-records';

/** What the sandbox's simulated `complete` submits on the user's behalf. */
function simulatedSubmission(kyc: KycRecord, user: KycUserFacts): KycSubmission {
  const address: PostalAddress = {
    addressLine1: '1 Sandbox Street',
    city: 'Sandbox City',
    postalCode: '10000',
    country: user.countryOfResidence,
  };
  switch (kyc.type) {
    case 'shipping':
      return { kind: 'shipping', shippingAddress: address };
    case 'rfi':
      return { kind: 'rfi', explanation: 'Simulated answer to the request for information (sandbox).' };
    default:
      return {
        kind: 'identity',
        // An erased user's names are gone: the submission is then incomplete, as it should be.
        firstName: user.firstName ?? '',
        lastName: user.lastName ?? '',
        dateOfBirth: '1990-01-01',
        address,
        ...(kyc.type === 'full' ? { documentNumber: 'SANDBOX-0000' } : {}),
      };
  }
}

/**
 * The outcomes of a KYC: the operator's review, the sandbox's simulations, and the expiry of links. The
 * review's effects on the user (activation, the shipping address) are applied before the outcome is
 * appended, so `kyc.verified` states truthfully whether the user was activated; both effects are idempotent,
 * so a review retried after a crash completes without doing anything twice. Activation is keyed by its cause
 * (this KYC verified): a retry after the user's status was changed since does not activate again.
 */
export class KycOutcomes {
  constructor(private readonly records: KycRecords) {}

  async simulate(
    caller: Caller,
    kycId: string,
    outcome: SimulatedOutcome,
    declinedCode?: DeclinedCode,
  ): Promise<KycResource> {
    const kyc = await this.records.owned(caller, kycId);
    let state: KycRecord;
    switch (outcome) {
      case 'complete': {
        const submission = simulatedSubmission(kyc, await this.records.existingUser(caller, kyc.userId));
        state = await this.records.execute(caller, kycId, (now) => ({
          type: 'SubmitKyc',
          data: { submission, now },
        }));
        break;
      }
      case 'approve':
      case 'decline':
        state = await this.decide(caller, kyc, outcome, declinedCode);
        break;
      case 'fail':
        state = await this.records.execute(caller, kycId, (now) => ({
          type: 'FailKyc',
          data: { reason: 'simulated processing failure', now },
        }));
        break;
      case 'expire':
        state = await this.records.execute(caller, kycId, (now) => ({
          type: 'ExpireKyc',
          data: { dueOnly: false, now },
        }));
        break;
      default: {
        const unknown: never = outcome;
        throw new DomainError('validation_error', `Unknown outcome ${String(unknown)}`);
      }
    }
    return this.records.resource(caller.environment, state);
  }

  /**
   * An operator's review of a submitted KYC: the reviewer of production until a vendor's decisions are
   * wired in (the sandbox reviews through the simulations).
   */
  async review(
    caller: Caller,
    kycId: string,
    decision: 'approve' | 'decline',
    declinedCode?: DeclinedCode,
  ): Promise<KycResource> {
    const kyc = await this.records.owned(caller, kycId);
    return this.records.resource(caller.environment, await this.decide(caller, kyc, decision, declinedCode));
  }

  private decide(
    caller: Caller,
    kyc: KycRecord,
    decision: 'approve' | 'decline',
    declinedCode?: DeclinedCode,
  ): Promise<KycRecord> {
    if (decision === 'approve') return this.approve(caller, kyc);
    return this.records.execute(caller, kyc.kycId, (now) => ({
      type: 'DeclineKyc',
      data: { declinedCode, now },
    }));
  }

  /**
   * Review approves, as the approval policy decides (kyc-approval.policy.ts): the effects on the user
   * first (shipping address, activation), the outcome event second (see the class comment).
   */
  private async approve(caller: Caller, kyc: KycRecord): Promise<KycRecord> {
    // Refuse a KYC that is not ready for review before touching the user.
    decideKyc(
      { type: 'ApproveKyc', data: { userActivated: false, now: this.records.clock.now().toISOString() } },
      kyc,
    );
    if (kyc.status === 'verified') return kyc;
    const user = await this.records.existingUser(caller, kyc.userId);
    const decision = approvalOf(kyc, {
      user,
      allowedCountries: caller.program.allowedCountries,
      earlierIdentityKycDeclined:
        needsDeclineHistory(kyc, user.status) && (await this.earlierIdentityKycDeclined(caller, kyc)),
    });
    if (decision.outcome === 'decline') {
      return this.records.execute(caller, kyc.kycId, (now) => ({
        type: 'DeclineKyc',
        data: { declinedCode: decision.declinedCode, now },
      }));
    }
    if (decision.shippingAddress)
      await this.records.ports.users.setShippingAddress(caller, kyc.userId, decision.shippingAddress);
    if (decision.activateUser)
      await this.records.ports.users.activateUser(
        caller,
        kyc.userId,
        `KYC ${kyc.kycId} verified`,
        kycEffectCause(kyc.kycId, 'verified'),
      );
    return this.records.execute(caller, kyc.kycId, (now) => ({
      type: 'ApproveKyc',
      data: {
        userActivated: decision.userActivated,
        userNotActivatedReason: decision.userNotActivatedReason,
        now,
      },
    }));
  }

  private async earlierIdentityKycDeclined(caller: Caller, kyc: KycRecord): Promise<boolean> {
    const declined = await this.records.find(caller, { userId: kyc.userId, status: 'declined' });
    return declined.some((k) => k.id !== kyc.kycId && IDENTITY_KYC_TYPES.includes(k.type));
  }

  /** Expires a pending KYC whose link is past its 14 days; does nothing otherwise. */
  async expireIfDue(environment: Environment, kycId: string): Promise<boolean> {
    const { state } = await loadState(this.records.ports.eventStore(environment), kycDecider, kycId);
    if (!isKyc(state)) return false;
    const scope: KycScope = { distributorId: state.distributorId, environment, requestId: `expiry_${kycId}` };
    const result = await handleCommand(
      this.records.ports.eventStore(environment),
      kycDecider,
      kycId,
      { type: 'ExpireKyc', data: { dueOnly: true, now: this.records.clock.now().toISOString() } },
      this.records.context(scope),
    );
    return result.events.length > 0;
  }
}
