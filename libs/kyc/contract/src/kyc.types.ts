// ---------------------------------------------------------------------------------------------------
// Value types of the KYC context, as the API and other contexts see them (spec parts 2 and 3)
// ---------------------------------------------------------------------------------------------------

export const KYC_TYPES = ['full', 'light', 'shipping', 'import', 'rfi'] as const;
export type KycType = (typeof KYC_TYPES)[number];

/** Types whose verification flow the service hosts (started with `PUT /v1/kycs`, reached by a link). */
export const HOSTED_KYC_TYPES = ['full', 'light', 'shipping', 'rfi'] as const;
export type HostedKycType = (typeof HOSTED_KYC_TYPES)[number];

/** Types that verify the user's identity: their approval may activate the user. */
export const IDENTITY_KYC_TYPES: readonly KycType[] = ['full', 'light', 'import'];

export const KYC_STATUSES = [
  'pending',
  'completed',
  'verified',
  'declined',
  'failed',
  'expired',
  'revoked',
] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

export const RFI_SUBTYPES = ['onboarding', 'transaction_monitoring', 'additional_id'] as const;
export type RfiSubtype = (typeof RFI_SUBTYPES)[number];

export const DECLINED_CODES = [
  'address',
  'dateofBirth',
  'name',
  'identity',
  'unknown',
  'prohibitedCountry',
  'phoneNumber',
] as const;
export type DeclinedCode = (typeof DECLINED_CODES)[number];

/** Why a verified identity KYC did not activate the user (`kyc.verified.userNotActivatedReason`). */
export const USER_NOT_ACTIVATED_REASONS = [
  'previousKycDeclined',
  'incompleteDetails',
  'userFrozen',
  'userDisabled',
  'userRevoked',
  'userDeleted',
] as const;
export type UserNotActivatedReason = (typeof USER_NOT_ACTIVATED_REASONS)[number];

export interface PostalAddress {
  addressLine1: string;
  addressLine2?: string;
  city: string;
  /** At most 12 characters (card networks' limit). */
  state?: string;
  postalCode: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
}

/** Identity data: entered in the hosted form (`full`, `light`) or imported (`import`). */
export interface IdentitySubmission {
  kind: 'identity';
  firstName: string;
  lastName: string;
  /** `YYYY-MM-DD`. */
  dateOfBirth: string;
  /** Always captured by the hosted form; an import may lack it (then activation is skipped). */
  address?: PostalAddress;
  /** Identity document number; `full` asks for it, `light` does not. */
  documentNumber?: string;
}

/** What a `shipping` KYC captures: the address physical cards are sent to. */
export interface ShippingSubmission {
  kind: 'shipping';
  shippingAddress: PostalAddress;
}

/** What an `rfi` asks the user for: an explanation (of flagged transactions, source of funds, ...). */
export interface RfiSubmission {
  kind: 'rfi';
  explanation: string;
}
