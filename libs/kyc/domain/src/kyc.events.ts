import { domainEventReader, type DomainEvent, type PersonalDataPolicy } from '@cip/shared/contracts';
import type { DeclinedCode, KycSubmission, KycType, RfiSubtype, UserNotActivatedReason } from './kyc.types';

// ---------------------------------------------------------------------------------------------------
// Domain events of a KYC stream (`kyc-<uuid>`)
// ---------------------------------------------------------------------------------------------------

export type KycCreated = DomainEvent<
  'KycCreated',
  {
    kycId: string;
    userId: string;
    distributorId: string;
    type: KycType;
    rfiSubtype: RfiSubtype | null;
    provider: string;
    /** The provider's reference of the verification session (a new one on each resume). */
    referenceId: string;
    /** When the link dies; null for an import, which has no link. */
    expiresAt: string | null;
    /** The imported identity data (import only: a hosted KYC's data arrives with `KycCompleted`). */
    submission: KycSubmission | null;
    createdAt: string;
  }
>;

export type KycPending = DomainEvent<'KycPending', { kycId: string; at: string }>;

export type KycCompleted = DomainEvent<
  'KycCompleted',
  {
    kycId: string;
    /** Whose data the submission is (its key seals it); absent from events recorded before sealing. */
    userId?: string;
    /** Null once the user was erased. */
    submission: KycSubmission | null;
    at: string;
  }
>;

export type KycVerified = DomainEvent<
  'KycVerified',
  { kycId: string; userActivated: boolean; userNotActivatedReason: UserNotActivatedReason | null; at: string }
>;

export type KycDeclined = DomainEvent<
  'KycDeclined',
  { kycId: string; declinedCode: DeclinedCode | null; at: string }
>;

export type KycFailed = DomainEvent<'KycFailed', { kycId: string; reason: string | null; at: string }>;

export type KycExpired = DomainEvent<'KycExpired', { kycId: string; at: string }>;

export type KycRevoked = DomainEvent<'KycRevoked', { kycId: string; reason: string | null; at: string }>;

/** `POST /v1/kycs/{kycId}/resume` on an expired KYC: a new provider session, a new link, pending again. */
export type KycResumed = DomainEvent<
  'KycResumed',
  { kycId: string; referenceId: string; expiresAt: string; at: string }
>;

export type KycEvent =
  | KycCreated
  | KycPending
  | KycCompleted
  | KycVerified
  | KycDeclined
  | KycFailed
  | KycExpired
  | KycRevoked
  | KycResumed;

/** How KYC streams are read (no upcaster yet: every event is still in its first shape). */
export const kycEvents = domainEventReader<KycEvent>();

/**
 * The personal data of KYC events: the identity, address or answer submitted, the user's own (sealed with
 * the user's key, so erasing the user erases its KYCs' data too).
 */
export const kycPersonalData = {
  KycCreated: { subject: 'userId', fields: ['submission'] },
  KycCompleted: { subject: 'userId', fields: ['submission'] },
} as const satisfies PersonalDataPolicy;
