import type { Phone, ShippingAddress, UserRecord, UserStatus } from '@cip/users/domain';

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

export function toUserView(user: UserRecord): UserView {
  return {
    id: user.userId,
    distributorId: user.distributorId,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    countryOfResidence: user.countryOfResidence,
    phone: user.phone,
    shippingAddress: user.shippingAddress,
    status: user.status,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}

/** The user record of the API (without internal fields). */
export function renderUser(view: UserView): Omit<UserView, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = view;
  return rendered;
}
