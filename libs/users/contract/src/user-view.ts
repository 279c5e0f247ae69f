import type { Phone, ShippingAddress, UserStatus } from './user.types';

/** A user as the API returns it, plus the owning distributor (kept for tenant filtering, never rendered). */
export interface UserView {
  id: string;
  distributorId: string;
  email: string;
  firstName: string;
  lastName: string;
  countryOfResidence: string;
  phone: Phone | null;
  shippingAddress: ShippingAddress | null;
  status: UserStatus;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** The user record of the API (without internal fields). */
export function renderUser(view: UserView): Omit<UserView, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = view;
  return rendered;
}
