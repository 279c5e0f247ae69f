import type {
  DeclinedCode,
  HostedKycType,
  IdentitySubmission,
  KycStatus,
  KycType,
  RfiSubtype,
} from '@cip/kyc/domain';
import type { KycView } from '@cip/kyc/read-models';
import type { FindQuery, FindResult } from '@cip/shared/read-store';
import type { HostedFormDefinition } from './sandbox-provider/hosted-form';
import type { KycScope } from './kyc.ports';

/** The caller of a KYC command from the API: tenant plus the program rules that apply to it. */
export interface KycCaller extends KycScope {
  program: { allowedCountries: readonly string[]; kycImportEnabled: boolean };
}

/** A KYC with the link the user is sent to (present only while the link works). */
export interface KycResource {
  kyc: KycView;
  accessUrl: string | null;
}

export interface KycListFilter {
  userId?: string;
  status?: KycStatus;
  type?: KycType;
}

export const SIMULATED_OUTCOMES = ['complete', 'approve', 'decline', 'fail', 'expire'] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];

/** What the hosted page shows for a working link. */
export interface HostedSession {
  kycId: string;
  type: HostedKycType;
  form: HostedFormDefinition;
}

/** What the gateway can ask of the KYC context. */
export interface KycApi {
  startHostedKyc(
    caller: KycCaller,
    input: { userId: string; type: HostedKycType; rfiSubtype?: RfiSubtype },
  ): Promise<KycResource>;
  importKyc(
    caller: KycCaller,
    input: { userId: string; identity: Omit<IdentitySubmission, 'kind'> },
  ): Promise<KycResource>;
  getKyc(caller: KycCaller, kycId: string): Promise<KycResource>;
  listKycs(
    caller: KycCaller,
    filter: KycListFilter,
    page: Omit<FindQuery, 'filter'>,
  ): Promise<FindResult<KycResource>>;
  /** `created`: the user had already completed it, so a new KYC was started instead of a new link. */
  resumeKyc(caller: KycCaller, kycId: string): Promise<KycResource & { created: boolean }>;
  /** An operator's review of a submitted KYC (approve activates the user as for the sandbox's approval). */
  review(
    caller: KycCaller,
    kycId: string,
    decision: 'approve' | 'decline',
    declinedCode?: DeclinedCode,
  ): Promise<KycResource>;
  simulate(
    caller: KycCaller,
    kycId: string,
    outcome: SimulatedOutcome,
    declinedCode?: DeclinedCode,
  ): Promise<KycResource>;
  /** The hosted page of a link token; null when the link is unknown, dead or expired. */
  openHostedSession(token: string): Promise<HostedSession | null>;
  /** Submits the hosted form; `errors` per field when the input is invalid; null when the link is dead. */
  submitHostedForm(
    token: string,
    posted: Record<string, unknown>,
  ): Promise<
    | { submitted: true }
    | { errors: Record<string, string>; values: Record<string, string>; session: HostedSession }
    | null
  >;
}

export const KYC_API = Symbol('KYC_API');
