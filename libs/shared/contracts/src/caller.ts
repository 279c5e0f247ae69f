import type { Environment, Tenant } from './environment';
import type { ProgramAuthorization } from './program-authorization';

/**
 * A distributor's program (spec part 1, facts 5 and 8; KYC import needs a contract addendum). It belongs to
 * the control plane, but every context reads some of it, so its shape is part of the platform's language.
 */
export interface ProgramRules {
  /** ISO 3166-1 alpha-2 codes of the countries users may reside in. Can change at short notice. */
  allowedCountries: string[];
  /** B2B distributors may send shipping details and change addresses. */
  b2b: boolean;
  /** Prepaid programs may withdraw funds on-chain. */
  prepaid: boolean;
  /** The contract addendum for imported (shared) KYC is signed. */
  kycImportEnabled: boolean;
  /** Card authorization settings (fees, fx rates, tolerance, hold expiry, settlement); absent: defaults. */
  authorization?: ProgramAuthorization;
  /** 3-D Secure settings (issue 13); absent: the defaults (`DEFAULT_THREE_DS_DEADLINE_SECONDS`). */
  threeDs?: ProgramThreeDs;
}

/** A program's 3-D Secure settings, set by the operator (`distributors configure --three-ds-deadline`). */
export interface ProgramThreeDs {
  /** How long an out-of-band challenge waits for the distributor's answer: 60 to 600 seconds. */
  challengeDeadlineSeconds: number;
}

/**
 * Who a command or a query is for, whatever the caller: the gateway for an API key, a saga for the event
 * it reacts to, the CLI for an operator. One type for the whole platform: every context API takes it, so
 * a context never has to guess which fields another one filled in.
 */
export interface Caller extends Tenant {
  environment: Environment;
  /** The program of the caller's distributor, as it is now. */
  program: ProgramRules;
  /** The request (or the event) the call belongs to: becomes the events' correlation id. */
  requestId: string;
}

/** Only what a context needs crosses a process boundary (the gateway's principal also carries its key id). */
export const wireCaller = ({ distributorId, environment, program, requestId }: Caller): Caller => ({
  distributorId,
  environment,
  program,
  requestId,
});
