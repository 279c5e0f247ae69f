// ---------------------------------------------------------------------------------------------------
// Value types of the users context, as every other context and the API see them
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

/** The statuses a user can be moved to (each has its event: `UserActivated`, `UserFrozen`, ...). */
export type TargetStatus = Exclude<UserStatus, 'onboarding'>;

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
