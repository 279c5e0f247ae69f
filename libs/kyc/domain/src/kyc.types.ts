// ---------------------------------------------------------------------------------------------------
// Value types of the KYC context (spec parts 2 and 3)
// ---------------------------------------------------------------------------------------------------

// The value types the KYC context publishes live in its contract (the published language).
export {
  DECLINED_CODES,
  HOSTED_KYC_TYPES,
  IDENTITY_KYC_TYPES,
  KYC_STATUSES,
  KYC_TYPES,
  RFI_SUBTYPES,
  USER_NOT_ACTIVATED_REASONS,
} from '@cip/kyc/contract';
export type {
  DeclinedCode,
  HostedKycType,
  IdentitySubmission,
  KycStatus,
  KycType,
  PostalAddress,
  RfiSubmission,
  RfiSubtype,
  ShippingSubmission,
  UserNotActivatedReason,
} from '@cip/kyc/contract';
import type { IdentitySubmission, KycType, RfiSubmission, ShippingSubmission } from '@cip/kyc/contract';

/** Spec part 8: a hosted KYC's link lives 14 days from its creation (and from each resume). */
export const KYC_LINK_LIFETIME_MS = 14 * 24 * 60 * 60 * 1000;

export type KycSubmission = IdentitySubmission | ShippingSubmission | RfiSubmission;

/** The kind of submission each type takes. */
export const SUBMISSION_KIND: Record<KycType, KycSubmission['kind']> = {
  full: 'identity',
  light: 'identity',
  import: 'identity',
  shipping: 'shipping',
  rfi: 'rfi',
};

/** Identity data is complete when it names the person, their birth date and their address. */
export const isCompleteIdentity = (identity: IdentitySubmission): boolean =>
  Boolean(identity.firstName && identity.lastName && identity.dateOfBirth && identity.address);
