import type { DeclinedCode, KycSubmission, KycType, RfiSubtype, UserNotActivatedReason } from './kyc.types';

// ---------------------------------------------------------------------------------------------------
// Commands of the KYC decider. Time (`now`), ids and the provider's reference arrive in the command.
// ---------------------------------------------------------------------------------------------------

/** Hosted (`PUT /v1/kycs`, an operator's RFI) or imported (`POST /v1/kycs`, with `submission`). */
export interface StartKyc {
  type: 'StartKyc';
  data: {
    kycId: string;
    userId: string;
    distributorId: string;
    kycType: KycType;
    rfiSubtype?: RfiSubtype;
    provider: string;
    referenceId: string;
    /** Imported identity data; required for `import`, refused otherwise. */
    submission?: KycSubmission;
    /** The program's contract addendum for imported KYC is signed. */
    importEnabled: boolean;
    now: string;
  };
}

/** The user submitted the hosted form (or the sandbox simulated it). */
export interface SubmitKyc {
  type: 'SubmitKyc';
  data: { submission: KycSubmission; now: string };
}

/** Review approved. The service has already applied the effect on the user and reports it here. */
export interface ApproveKyc {
  type: 'ApproveKyc';
  data: { userActivated: boolean; userNotActivatedReason?: UserNotActivatedReason; now: string };
}

export interface DeclineKyc {
  type: 'DeclineKyc';
  data: { declinedCode?: DeclinedCode; now: string };
}

export interface FailKyc {
  type: 'FailKyc';
  data: { reason?: string; now: string };
}

/**
 * `dueOnly`: the expiry scheduler's sweep, which expires only a pending KYC whose link is past its time
 * and otherwise does nothing (it may race a completion). Without it (sandbox simulation) the KYC must
 * be pending and expires at once.
 */
export interface ExpireKyc {
  type: 'ExpireKyc';
  data: { dueOnly: boolean; now: string };
}

export interface RevokeKyc {
  type: 'RevokeKyc';
  data: { reason?: string; now: string };
}

export interface ResumeKyc {
  type: 'ResumeKyc';
  data: { referenceId: string; now: string };
}

export type KycCommand =
  StartKyc | SubmitKyc | ApproveKyc | DeclineKyc | FailKyc | ExpireKyc | RevokeKyc | ResumeKyc;
