import { Caller, defineContext, type FindPage, type FindResult } from '@cip/shared/contracts';
import type { HostedFormDefinition } from './hosted-form';
import type { KycView } from './kyc-view';
import type {
  DeclinedCode,
  HostedKycType,
  IdentitySubmission,
  KycStatus,
  KycType,
  RfiSubtype,
} from './kyc.types';

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

// ---------------------------------------------------------------------------------------------------
// Distributors (/v1/kycs)
// ---------------------------------------------------------------------------------------------------

export interface KycApi {
  startHostedKyc(
    caller: Caller,
    input: { userId: string; type: HostedKycType; rfiSubtype?: RfiSubtype },
  ): Promise<KycResource>;
  importKyc(
    caller: Caller,
    input: { userId: string; identity: Omit<IdentitySubmission, 'kind'> },
  ): Promise<KycResource>;
  getKyc(caller: Caller, kycId: string): Promise<KycResource>;
  listKycs(caller: Caller, filter: KycListFilter, page: FindPage): Promise<FindResult<KycResource>>;
  /** `created`: the user had already completed it, so a new KYC was started instead of a new link. */
  resumeKyc(caller: Caller, kycId: string): Promise<KycResource & { created: boolean }>;
}

export const KYC_API = Symbol('KYC_API');

export const kycContract = defineContext<KycApi>({
  name: 'kyc',
  token: KYC_API,
  methods: {
    startHostedKyc: ['caller', 'input'],
    importKyc: ['caller', 'input'],
    getKyc: ['caller', 'kycId'],
    listKycs: ['caller', 'filter', 'page'],
    resumeKyc: ['caller', 'kycId'],
  },
});

// ---------------------------------------------------------------------------------------------------
// Operators (the CLI today, the dashboard next)
// ---------------------------------------------------------------------------------------------------

export interface KycOperatorApi {
  /** A review of a submitted KYC (approve activates the user as for the sandbox's approval). */
  review(
    caller: Caller,
    kycId: string,
    decision: 'approve' | 'decline',
    declinedCode?: DeclinedCode,
  ): Promise<KycResource>;
  /**
   * A Request for Information on a user (compliance): a hosted rfi KYC whose link the user answers; a
   * declined or unanswered RFI freezes an active user (`cli kyc rfi`, the backoffice).
   */
  raiseRfi(caller: Caller, userId: string, rfiSubtype: RfiSubtype): Promise<KycResource>;
}

export const KYC_OPERATOR_API = Symbol('KYC_OPERATOR_API');

export const kycOperatorContract = defineContext<KycOperatorApi>({
  name: 'kyc.operator',
  token: KYC_OPERATOR_API,
  methods: {
    review: ['caller', 'kycId', 'decision', 'declinedCode'],
    raiseRfi: ['caller', 'userId', 'rfiSubtype'],
  },
});

// ---------------------------------------------------------------------------------------------------
// Sandbox simulations (the simulator service will host these)
// ---------------------------------------------------------------------------------------------------

export const SIMULATED_OUTCOMES = ['complete', 'approve', 'decline', 'fail', 'expire'] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];

export interface KycSimulationApi {
  simulate(
    caller: Caller,
    kycId: string,
    outcome: SimulatedOutcome,
    declinedCode?: DeclinedCode,
  ): Promise<KycResource>;
}

export const KYC_SIMULATION_API = Symbol('KYC_SIMULATION_API');

export const kycSimulationContract = defineContext<KycSimulationApi>({
  name: 'kyc.simulation',
  token: KYC_SIMULATION_API,
  methods: { simulate: ['caller', 'kycId', 'outcome', 'declinedCode'] },
});

// ---------------------------------------------------------------------------------------------------
// Hosted pages (reached by the user with a signed link, no API key)
// ---------------------------------------------------------------------------------------------------

/** Where the hosted verification pages are served (the link's path, before its signed token). */
export const HOSTED_KYC_PATH = '/hosted/kyc';

/** What the hosted page shows for a working link. */
export interface HostedSession {
  kycId: string;
  type: HostedKycType;
  form: HostedFormDefinition;
}

export type HostedFormOutcome =
  | { submitted: true }
  | { errors: Record<string, string>; values: Record<string, string>; session: HostedSession };

export interface KycHostedPagesApi {
  /** The hosted page of a link token; null when the link is unknown, dead or expired. */
  openHostedSession(token: string): Promise<HostedSession | null>;
  /** Submits the hosted form; `errors` per field when the input is invalid; null when the link is dead. */
  submitHostedForm(token: string, posted: Record<string, unknown>): Promise<HostedFormOutcome | null>;
}

export const KYC_HOSTED_PAGES_API = Symbol('KYC_HOSTED_PAGES_API');

export const kycHostedPagesContract = defineContext<KycHostedPagesApi>({
  name: 'kyc.hosted-pages',
  token: KYC_HOSTED_PAGES_API,
  methods: {
    openHostedSession: ['token'],
    submitHostedForm: ['token', 'posted'],
  },
});
