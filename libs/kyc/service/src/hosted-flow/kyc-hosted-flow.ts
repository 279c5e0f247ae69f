import { DomainError, Environment, ENVIRONMENTS } from '@cip/shared/contracts';
import { loadState } from '@cip/shared/eventing';
import type { HostedFormOutcome, HostedSession } from '@cip/kyc/contract';
import { HostedKycType, isHosted, isKyc, kycDecider, KycRecord, linkIsOpen } from '@cip/kyc/domain';
import type { KycScope } from '../kyc.ports';
import type { KycRecords } from '../kycs/kyc-records';
import { hostedFormOf, parseHostedForm } from '../sandbox-provider/hosted-form';

/** The hosted verification flow of the sandbox provider: the page of a signed link, and its form posted. */
export class KycHostedFlow {
  constructor(private readonly records: KycRecords) {}

  async openHostedSession(token: string): Promise<HostedSession | null> {
    const found = await this.resolveLink(token);
    if (!found || !linkIsOpen(found.kyc, this.records.clock.now().toISOString())) return null;
    return this.session(found.kyc);
  }

  async submitHostedForm(token: string, posted: Record<string, unknown>): Promise<HostedFormOutcome | null> {
    const found = await this.resolveLink(token);
    if (!found || !linkIsOpen(found.kyc, this.records.clock.now().toISOString())) return null;
    const session = this.session(found.kyc);
    const parsed = parseHostedForm(session.form, session.type, posted, this.records.clock.now());
    if ('errors' in parsed) return { ...parsed, session };
    const scope: KycScope = {
      distributorId: found.kyc.distributorId,
      environment: found.environment,
      requestId: `hosted_${found.kyc.referenceId}`,
    };
    try {
      await this.records.execute(scope, found.kyc.kycId, (now) => ({
        type: 'SubmitKyc',
        data: { submission: parsed.submission, now },
      }));
    } catch (error) {
      // Submitted twice, or the link died between the page load and the post.
      if (error instanceof DomainError && error.code === 'invalid_state_transition') return null;
      throw error;
    }
    return { submitted: true };
  }

  private session(kyc: KycRecord): HostedSession {
    const type = kyc.type as HostedKycType;
    return { kycId: kyc.kycId, type, form: hostedFormOf(type, kyc.rfiSubtype) };
  }

  /** The KYC a link token names, in the environment whose signature it carries. */
  private async resolveLink(token: string): Promise<{ kyc: KycRecord; environment: Environment } | null> {
    const links = this.records.ports.hostedFlow;
    const parsed = links?.parseToken(token);
    if (!links || !parsed) return null;
    for (const environment of ENVIRONMENTS) {
      const { state } = await loadState(this.records.ports.eventStore(environment), kycDecider, parsed.kycId);
      if (!isKyc(state) || !isHosted(state)) continue;
      if (
        links.verifies(parsed.signature, { environment, kycId: state.kycId, referenceId: state.referenceId })
      ) {
        return { kyc: state, environment };
      }
    }
    return null;
  }
}
