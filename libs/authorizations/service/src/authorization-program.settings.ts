import { programAuthorization } from '@cip/authorizations/contract';
import type { AuthorizationProgram } from '@cip/authorizations/domain';
import type { ProgramDirectory } from '@cip/distributors/contract';
import type { ProgramAuthorization } from '@cip/shared/contracts';

// One AuthorizationProgram per settings object: the directory keeps a program's settings as one object
// until the operator changes them, so the hot path (every authorization) maps them once, not per call.
const mapped = new WeakMap<ProgramAuthorization, AuthorizationProgram>();

/** The program's settings (as the distributor CLI sets them) in the decision policy's and pricing's terms. */
export function authorizationProgramOf(settings: ProgramAuthorization): AuthorizationProgram {
  let program = mapped.get(settings);
  if (!program) {
    program = Object.freeze({
      fxRates: Object.freeze({ ...settings.fxRates }),
      fees: Object.freeze({ fxRate: settings.fees.fx, atm: settings.fees.atm, auth: settings.fees.auth }),
      clearingTolerance: settings.clearingTolerance,
      holdExpiryDays: settings.holdExpiryDays,
    });
    mapped.set(settings, program);
  }
  return program;
}

/**
 * The distributor's authorization program as it is now, read from the control plane at each call: a change
 * made with the CLI applies to the next authorization, without a restart. The defaults for a distributor
 * whose program has no settings (or one the directory does not know, which has no card either).
 */
export const currentAuthorizationProgram = (programs: ProgramDirectory, distributorId: string) =>
  authorizationProgramOf(programAuthorization(programs.programOf(distributorId) ?? {}));
