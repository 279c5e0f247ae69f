import type { UserView } from '@cip/users/contract';
import type { UserRecord } from '@cip/users/domain';

export type { UserView };
export { renderUser } from '@cip/users/contract';

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
