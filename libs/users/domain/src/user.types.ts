// ---------------------------------------------------------------------------------------------------
// Value types of the user context
// ---------------------------------------------------------------------------------------------------

export const USER_STATUSES = [
  'onboarding',
  'unverified',
  'active',
  'frozen',
  'disabled',
  'revoked',
  'deleted',
] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** Phone as the spec shapes it: `country` is the prefix (`+33`), `number` the rest without the prefix. */
export interface Phone {
  country: string;
  number: string;
}

/** Shipping address used for physical cards. `state` is at most 12 characters (card networks' limit). */
export interface ShippingAddress {
  addressLine1: string;
  addressLine2?: string;
  city: string;
  state?: string;
  postalCode: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

/** What a distributor's program allows, as of the command (read from the distributor's configuration). */
export interface UserProgramRules {
  allowedCountries: readonly string[];
  /** B2B distributors may set and change shipping addresses through the API. */
  b2b: boolean;
}

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();
