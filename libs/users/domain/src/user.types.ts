// ---------------------------------------------------------------------------------------------------
// Value types of the user context
// ---------------------------------------------------------------------------------------------------

// The value types the users context publishes live in its contract (the published language); the domain
// speaks the same language.
export { USER_STATUSES } from '@cip/users/contract';
export type { Phone, ShippingAddress, UserStatus } from '@cip/users/contract';

/** What a distributor's program allows, as of the command (read from the distributor's configuration). */
export interface UserProgramRules {
  allowedCountries: readonly string[];
  /** B2B distributors may set and change shipping addresses through the API. */
  b2b: boolean;
}

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();
