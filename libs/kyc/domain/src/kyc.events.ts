import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';
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
  { kycId: string; submission: KycSubmission; at: string }
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
