import type { Caller, Environment, FindPage, FindResult } from '@cip/shared/contracts';
import type { Clock } from '@cip/shared/runtime';
import type {
  HostedFormOutcome,
  HostedSession,
  KycApi,
  KycHostedPagesApi,
  KycListFilter,
  KycOperatorApi,
  KycResource,
  KycSimulationApi,
  SimulatedOutcome,
} from '@cip/kyc/contract';
import type { DeclinedCode, HostedKycType, IdentitySubmission, RfiSubtype } from '@cip/kyc/domain';
import { KycHostedFlow } from './hosted-flow/kyc-hosted-flow';
import type { KycScope } from './kyc.ports';
import { KycOutcomes } from './kycs/kyc-outcomes';
import { KycQueries } from './kycs/kyc-queries';
import { KycRecords, KycServicePorts } from './kycs/kyc-records';
import { KycStarts } from './kycs/kyc-starts';

export type { KycServicePorts } from './kycs/kyc-records';

/**
 * The KYC context, as its four contracts, the expiry sweep and the CLI see it. The work is done by its
 * parts: starts (hosted, RFI, import, resume), queries, outcomes (review, simulations, expiry; the approval
 * itself is the pure policy of the domain) and the hosted flow of the sandbox provider.
 */
export class KycService implements KycApi, KycOperatorApi, KycSimulationApi, KycHostedPagesApi {
  private readonly starts: KycStarts;
  private readonly queries: KycQueries;
  private readonly outcomes: KycOutcomes;
  private readonly hostedFlow: KycHostedFlow;

  constructor(ports: KycServicePorts, clock: Clock) {
    const records = new KycRecords(ports, clock);
    this.starts = new KycStarts(records);
    this.queries = new KycQueries(records);
    this.outcomes = new KycOutcomes(records);
    this.hostedFlow = new KycHostedFlow(records);
  }

  // Distributors (KycApi)
  startHostedKyc(
    caller: Caller,
    input: { userId: string; type: HostedKycType; rfiSubtype?: RfiSubtype },
  ): Promise<KycResource> {
    return this.starts.startHostedKyc(caller, input);
  }

  importKyc(
    caller: Caller,
    input: { userId: string; identity: Omit<IdentitySubmission, 'kind'> },
  ): Promise<KycResource> {
    return this.starts.importKyc(caller, input);
  }

  getKyc(caller: Caller, kycId: string): Promise<KycResource> {
    return this.queries.getKyc(caller, kycId);
  }

  listKycs(caller: Caller, filter: KycListFilter, page: FindPage): Promise<FindResult<KycResource>> {
    return this.queries.listKycs(caller, filter, page);
  }

  resumeKyc(caller: Caller, kycId: string): Promise<KycResource & { created: boolean }> {
    return this.starts.resumeKyc(caller, kycId);
  }

  // Operators (KycOperatorApi, the CLI)
  review(
    caller: Caller,
    kycId: string,
    decision: 'approve' | 'decline',
    declinedCode?: DeclinedCode,
  ): Promise<KycResource> {
    return this.outcomes.review(caller, kycId, decision, declinedCode);
  }

  raiseRfi(scope: KycScope, userId: string, rfiSubtype: RfiSubtype): Promise<KycResource> {
    return this.starts.raiseRfi(scope, userId, rfiSubtype);
  }

  // Sandbox simulations (KycSimulationApi)
  simulate(
    caller: Caller,
    kycId: string,
    outcome: SimulatedOutcome,
    declinedCode?: DeclinedCode,
  ): Promise<KycResource> {
    return this.outcomes.simulate(caller, kycId, outcome, declinedCode);
  }

  // Hosted pages (KycHostedPagesApi)
  openHostedSession(token: string): Promise<HostedSession | null> {
    return this.hostedFlow.openHostedSession(token);
  }

  submitHostedForm(token: string, posted: Record<string, unknown>): Promise<HostedFormOutcome | null> {
    return this.hostedFlow.submitHostedForm(token, posted);
  }

  // The expiry sweep (KycExpiryScheduler)
  expireIfDue(environment: Environment, kycId: string): Promise<boolean> {
    return this.outcomes.expireIfDue(environment, kycId);
  }
}
