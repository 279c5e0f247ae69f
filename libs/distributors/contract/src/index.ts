import type { ProgramRules } from '@cip/shared/contracts';

/**
 * The control plane as the contexts need it: the current program of a distributor, for the calls a context
 * makes on its own (a saga reacting to an event has no API caller to take the program from).
 */
export interface ProgramDirectory {
  /** The distributor's program as it is now; null for an unknown distributor. */
  programOf(distributorId: string): ProgramRules | null;
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

/**
 * The control plane as operators use it (the backoffice's operator API; the CLI opens the service directly).
 * The backoffice issue extends it with the admin changes (create, configure, keys).
 */
export interface ControlPlaneApi {
  /** Every distributor, oldest first. */
  listDistributors(): Promise<DistributorSummary[]>;
}

export const CONTROL_PLANE_API = Symbol('CONTROL_PLANE_API');
