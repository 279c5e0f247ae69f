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
