import { Decider, DomainError } from '@cip/shared/contracts';
import type {
  ApproveKyc,
  DeclineKyc,
  ExpireKyc,
  FailKyc,
  KycCommand,
  ResumeKyc,
  RevokeKyc,
  StartKyc,
  SubmitKyc,
} from './kyc.commands';
import { kycEvents, type KycEvent } from './kyc.events';
import {
  DeclinedCode,
  KYC_LINK_LIFETIME_MS,
  KycStatus,
  KycSubmission,
  KycType,
  RfiSubtype,
  SUBMISSION_KIND,
  UserNotActivatedReason,
} from './kyc.types';

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

export interface KycRecord {
  status: KycStatus;
  kycId: string;
  userId: string;
  distributorId: string;
  type: KycType;
  rfiSubtype: RfiSubtype | null;
  provider: string;
  referenceId: string;
  /** When the current link dies (null for an import). */
  expiresAt: string | null;
  /** When the current link was issued (creation or last resume; null for an import). */
  linkIssuedAt: string | null;
  submission: KycSubmission | null;
  declinedCode: DeclinedCode | null;
  userActivated: boolean | null;
  userNotActivatedReason: UserNotActivatedReason | null;
  createdAt: string;
  updatedAt: string;
}

export type KycState = { status: 'absent' } | KycRecord;

export const isKyc = (state: KycState): state is KycRecord => state.status !== 'absent';

export const isHosted = (kyc: Pick<KycRecord, 'type'>): boolean => kyc.type !== 'import';

/** Whether the user can still use the KYC's link at `now`: hosted, pending and not past its time. */
export const linkIsOpen = (kyc: KycRecord, now: string): boolean =>
  isHosted(kyc) && kyc.status === 'pending' && kyc.expiresAt !== null && now < kyc.expiresAt;

const addLifetime = (now: string) => new Date(Date.parse(now) + KYC_LINK_LIFETIME_MS).toISOString();

/**
 * What `POST /v1/kycs/{kycId}/resume` does (spec part 3): an expired KYC gets a new link; a KYC the user
 * already completed gives way to a new KYC of the same kind; anything else (pending: it must expire first;
 * declined, failed, revoked; an import, which has no link) is refused.
 */
export function resumePlan(state: KycState): 'reissue_link' | 'start_new' {
  const kyc = existing(state);
  if (isHosted(kyc) && kyc.status === 'expired') return 'reissue_link';
  if (isHosted(kyc) && (kyc.status === 'completed' || kyc.status === 'verified')) return 'start_new';
  const why = !isHosted(kyc)
    ? 'an imported KYC has no link'
    : kyc.status === 'pending'
      ? 'it is pending: its link is still valid and it can be resumed only once it has expired'
      : `it is ${kyc.status}; start a new KYC instead`;
  throw new DomainError('kyc_resume_not_allowed_error', `KYC ${kyc.kycId} cannot be resumed: ${why}`);
}

// ---------------------------------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------------------------------

function existing(state: KycState): KycRecord {
  if (!isKyc(state)) throw new DomainError('not_found', 'KYC was not found');
  return state;
}

const refuse = (kyc: KycRecord, action: string) =>
  new DomainError('invalid_state_transition', `KYC ${kyc.kycId} is ${kyc.status} and cannot be ${action}`);

function startKyc({ data }: StartKyc, state: KycState): KycEvent[] {
  if (isKyc(state)) throw new DomainError('invalid_state_transition', `KYC ${data.kycId} already exists`);
  if (data.kycType === 'rfi' && !data.rfiSubtype) {
    throw new DomainError('validation_error', 'An rfi KYC needs an rfiSubtype', [
      { field: 'rfiSubtype', message: 'required when type is rfi' },
    ]);
  }
  if (data.kycType !== 'rfi' && data.rfiSubtype) {
    throw new DomainError('validation_error', 'rfiSubtype is only for type rfi', [
      { field: 'rfiSubtype', message: 'allowed only when type is rfi' },
    ]);
  }
  const imported = data.kycType === 'import';
  if (imported && !data.importEnabled) {
    throw new DomainError(
      'kyc_import_not_enabled',
      'Imported KYC needs a signed contract addendum; ask the service operator to enable it for your program',
    );
  }
  if (imported !== Boolean(data.submission) || (data.submission && data.submission.kind !== 'identity')) {
    throw new DomainError(
      'validation_error',
      imported ? 'An imported KYC carries the identity data' : 'A hosted KYC takes its data from the user',
    );
  }
  return [
    {
      type: 'KycCreated',
      data: {
        kycId: data.kycId,
        userId: data.userId,
        distributorId: data.distributorId,
        type: data.kycType,
        rfiSubtype: data.rfiSubtype ?? null,
        provider: data.provider,
        referenceId: data.referenceId,
        expiresAt: imported ? null : addLifetime(data.now),
        submission: data.submission ?? null,
        createdAt: data.now,
      },
    },
    { type: 'KycPending', data: { kycId: data.kycId, at: data.now } },
  ];
}

function submitKyc({ data }: SubmitKyc, state: KycState): KycEvent[] {
  const kyc = existing(state);
  if (!isHosted(kyc))
    throw new DomainError('invalid_state_transition', 'An imported KYC has no form to submit');
  if (kyc.status !== 'pending') throw refuse(kyc, 'submitted');
  if (!linkIsOpen(kyc, data.now)) {
    throw new DomainError('invalid_state_transition', `The link of KYC ${kyc.kycId} has expired`);
  }
  if (data.submission.kind !== SUBMISSION_KIND[kyc.type]) {
    throw new DomainError('validation_error', `A ${kyc.type} KYC takes ${SUBMISSION_KIND[kyc.type]} data`);
  }
  return [
    {
      type: 'KycCompleted',
      data: { kycId: kyc.kycId, userId: kyc.userId, submission: data.submission, at: data.now },
    },
  ];
}

/** A hosted KYC is reviewed once the user has submitted it; an import as soon as it is pending. */
function reviewable(kyc: KycRecord, action: string): void {
  const ready = isHosted(kyc) ? kyc.status === 'completed' : kyc.status === 'pending';
  if (ready) return;
  if (isHosted(kyc) && kyc.status === 'pending') {
    throw new DomainError(
      'invalid_state_transition',
      `KYC ${kyc.kycId} cannot be ${action}: the user has not submitted the verification yet`,
    );
  }
  throw refuse(kyc, action);
}

function approveKyc({ data }: ApproveKyc, state: KycState): KycEvent[] {
  const kyc = existing(state);
  if (kyc.status === 'verified') return [];
  reviewable(kyc, 'approved');
  return [
    {
      type: 'KycVerified',
      data: {
        kycId: kyc.kycId,
        userActivated: data.userActivated,
        userNotActivatedReason: data.userNotActivatedReason ?? null,
        at: data.now,
      },
    },
  ];
}

function declineKyc({ data }: DeclineKyc, state: KycState): KycEvent[] {
  const kyc = existing(state);
  if (kyc.status === 'declined') return [];
  reviewable(kyc, 'declined');
  return [
    {
      type: 'KycDeclined',
      data: { kycId: kyc.kycId, declinedCode: data.declinedCode ?? null, at: data.now },
    },
  ];
}

function failKyc({ data }: FailKyc, state: KycState): KycEvent[] {
  const kyc = existing(state);
  if (kyc.status === 'failed') return [];
  if (kyc.status !== 'pending' && kyc.status !== 'completed') throw refuse(kyc, 'failed');
  return [{ type: 'KycFailed', data: { kycId: kyc.kycId, reason: data.reason ?? null, at: data.now } }];
}

function expireKyc({ data }: ExpireKyc, state: KycState): KycEvent[] {
  const kyc = existing(state);
  const expire: KycEvent[] = [{ type: 'KycExpired', data: { kycId: kyc.kycId, at: data.now } }];
  if (data.dueOnly) {
    return isHosted(kyc) && kyc.status === 'pending' && !linkIsOpen(kyc, data.now) ? expire : [];
  }
  if (kyc.status === 'expired') return [];
  if (!isHosted(kyc))
    throw new DomainError('invalid_state_transition', 'An imported KYC has no link to expire');
  if (kyc.status !== 'pending') throw refuse(kyc, 'expired');
  return expire;
}

function revokeKyc({ data }: RevokeKyc, state: KycState): KycEvent[] {
  const kyc = existing(state);
  if (kyc.status === 'revoked') return [];
  if (kyc.status !== 'pending') throw refuse(kyc, 'revoked');
  return [{ type: 'KycRevoked', data: { kycId: kyc.kycId, reason: data.reason ?? null, at: data.now } }];
}

function resumeKyc({ data }: ResumeKyc, state: KycState): KycEvent[] {
  const kyc = existing(state);
  if (resumePlan(kyc) !== 'reissue_link') {
    throw new DomainError(
      'kyc_resume_not_allowed_error',
      `KYC ${kyc.kycId} is ${kyc.status}: a new KYC is needed, not a new link`,
    );
  }
  return [
    {
      type: 'KycResumed',
      data: {
        kycId: kyc.kycId,
        referenceId: data.referenceId,
        expiresAt: addLifetime(data.now),
        at: data.now,
      },
    },
  ];
}

export function decideKyc(command: KycCommand, state: KycState): KycEvent[] {
  switch (command.type) {
    case 'StartKyc':
      return startKyc(command, state);
    case 'SubmitKyc':
      return submitKyc(command, state);
    case 'ApproveKyc':
      return approveKyc(command, state);
    case 'DeclineKyc':
      return declineKyc(command, state);
    case 'FailKyc':
      return failKyc(command, state);
    case 'ExpireKyc':
      return expireKyc(command, state);
    case 'RevokeKyc':
      return revokeKyc(command, state);
    case 'ResumeKyc':
      return resumeKyc(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as KycCommand).type}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

export function evolveKyc(state: KycState, event: KycEvent): KycState {
  if (event.type === 'KycCreated') {
    const { data } = event;
    return {
      ...data,
      status: 'pending',
      linkIssuedAt: data.expiresAt ? data.createdAt : null,
      declinedCode: null,
      userActivated: null,
      userNotActivatedReason: null,
      updatedAt: data.createdAt,
    };
  }
  if (!isKyc(state)) return state;
  const at = { updatedAt: event.data.at };
  switch (event.type) {
    case 'KycPending':
      return { ...state, ...at, status: 'pending' };
    case 'KycCompleted':
      return { ...state, ...at, status: 'completed', submission: event.data.submission };
    case 'KycVerified':
      return {
        ...state,
        ...at,
        status: 'verified',
        userActivated: event.data.userActivated,
        userNotActivatedReason: event.data.userNotActivatedReason,
      };
    case 'KycDeclined':
      return { ...state, ...at, status: 'declined', declinedCode: event.data.declinedCode };
    case 'KycFailed':
      return { ...state, ...at, status: 'failed' };
    case 'KycExpired':
      return { ...state, ...at, status: 'expired' };
    case 'KycRevoked':
      return { ...state, ...at, status: 'revoked' };
    case 'KycResumed':
      return {
        ...state,
        ...at,
        status: 'pending',
        referenceId: event.data.referenceId,
        expiresAt: event.data.expiresAt,
        linkIssuedAt: event.data.at,
      };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const kycDecider: Decider<KycCommand, KycEvent, KycState> = {
  decide: decideKyc,
  evolve: evolveKyc,
  initialState: () => ({ status: 'absent' }),
  events: kycEvents,
};
