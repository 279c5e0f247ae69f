import type { Phone, ShippingAddress, UserStatus } from './user.types';

/**
 * A user as the API returns it, plus the owning distributor (kept for tenant filtering, never rendered).
 * Once erased, a user is a pseudonymous record: its personal fields are null.
 */
export interface UserView {
  id: string;
  distributorId: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  countryOfResidence: string;
  phone: Phone | null;
  shippingAddress: ShippingAddress | null;
  status: UserStatus;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** The fields of a user that are personal data: null once the user was erased. */
export const USER_PERSONAL_FIELDS = ['email', 'firstName', 'lastName', 'phone', 'shippingAddress'] as const;

/**
 * The fields of the public Events about a user that hold its personal data: the user record's, and the
 * contact other contexts' Events carry under the spec's names (`emailAddress` of
 * `cardTokenization.deliverActivationCode`). An erasure redacts them in every Event recorded about the user.
 */
export const USER_PERSONAL_EVENT_FIELDS = [...USER_PERSONAL_FIELDS, 'emailAddress'] as const;

/** The user record of the API (without internal fields). */
export function renderUser(view: UserView): Omit<UserView, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = view;
  return rendered;
}
