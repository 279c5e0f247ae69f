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
  /** The claim of a keyed request (`x-idempotency-key`) this call runs for, when it has one. */
  idempotency?: IdempotentRun;
}

/**
 * A keyed request's claim, as the gateway holding it hands it to the process that runs the command (a service of
 * the split topology): that process records durably, with the first events it appends for the request, that the
 * claim ran, and refuses a second run of the same claim (docs/API-DECISIONS.md, idempotency).
 */
export interface IdempotentRun {
  /** The claimed identity (the gateway's hash of tenant, key, method, route, query and body). */
  key: string;
  /** This run of it: unique per claim, so that a retry is told apart from the run it retries. */
  run: string;
  /** When the gateway claimed it, and when its record expires (ms since the epoch). */
  claimedAt: number;
  expiresAt: number;
}

/** Why a keyed request is refused, the same wherever it is (the gateway, or the service running its command). */
export const IDEMPOTENCY_REFUSALS = {
  idempotency_request_in_progress:
    'An identical request with this idempotency key is still being processed; retry shortly',
  idempotency_outcome_lost:
    'An identical request with this idempotency key was executed, but its response was lost in a ' +
    'server restart; it is not executed again: look the result up (list or get) instead',
} as const;

/** Only what a context needs crosses a process boundary (the gateway's principal also carries its key id). */
export const wireCaller = ({
  distributorId,
  environment,
  program,
  requestId,
  idempotency,
}: Caller): Caller => ({
  distributorId,
  environment,
  program,
  requestId,
  ...(idempotency && { idempotency }),
});
