import type { Environment, ProgramRules } from '@cip/shared/contracts';
import type { ProgramChanges } from './program-settings';

export * from './program-settings';

/**
 * The control plane as the contexts need it: the current program of a distributor, for the calls a context
 * makes on its own (a saga reacting to an event has no API caller to take the program from).
 */
export interface ProgramDirectory {
  /** The distributor's program as it is now; null for an unknown distributor. */
  programOf(distributorId: string): ProgramRules | null;
  /**
   * Reads the changes another process made since (the CLI, the operator API of the dashboard process), so
   * that `programOf` returns them: for a call that must apply a change at once. Absent where the directory
   * cannot lag (a fixed one in tests).
   */
  catchUp?(): Promise<void>;
}

export const PROGRAM_DIRECTORY = Symbol('PROGRAM_DIRECTORY');

/** A distributor as operators list it (the backoffice): who it is and its program now. */
export interface DistributorSummary {
  distributorId: string;
  name: string;
  program: ProgramRules;
  isDefault: boolean;
  createdAt: string;
}

/** An API key as operators see it: everything but the key and its hash. */
export interface DistributorKeyView {
  keyId: string;
  environment: Environment;
  /** Last four characters, to tell keys apart. */
  last4: string;
  label: string | null;
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
}

/**
 * A distributor with its program's settings in force (its own, or the defaults: `authorization` and
 * `threeDs` are always filled in; `authorizationSettings` says which) and its keys.
 */
export interface DistributorDetail extends DistributorSummary {
  authorizationSettings: 'configured' | 'defaults';
  keys: DistributorKeyView[];
  updatedAt: string;
}

/** A key just issued or rolled: the key itself is shown here, once, and never again. */
export interface IssuedDistributorKey {
  key: DistributorKeyView;
  distributorId: string;
  apiKey: string;
}

/**
 * The control plane as operators use it (the backoffice's operator API; the CLI opens the service directly).
 * Refusals are DomainErrors: `not_found` (distributor, key), `validation_error` (a program setting, with
 * `details` by field: `countries`, `feeFx`, `fxRates.EUR`, ...), `invalid_state_transition` (a revoked key).
 */
export interface ControlPlaneApi {
  /** Every distributor, oldest first. */
  listDistributors(): Promise<DistributorSummary[]>;
  getDistributor(distributorId: string): Promise<DistributorDetail>;
  /** A new distributor; its program starts from the defaults (countries: EEA, UK, Switzerland) with the changes. */
  createDistributor(input: { name: string; program?: ProgramChanges }): Promise<DistributorDetail>;
  /** The same settings as `cli distributors configure`; applies to the next /v1 call. */
  configureProgram(distributorId: string, changes: ProgramChanges): Promise<DistributorDetail>;
  issueKey(
    distributorId: string,
    environment: Environment,
    label?: string | null,
  ): Promise<IssuedDistributorKey>;
  /** The replacement (same environment and label); the old key stops authenticating at once. */
  rollKey(keyId: string): Promise<IssuedDistributorKey>;
  revokeKey(keyId: string): Promise<DistributorKeyView>;
  /** The distributor a key belongs to (audit targets), or null. */
  ownerOfKey(keyId: string): Promise<string | null>;
}

export const CONTROL_PLANE_API = Symbol('CONTROL_PLANE_API');
