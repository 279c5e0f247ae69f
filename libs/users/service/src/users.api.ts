import type { Environment } from '@cip/shared/contracts';
import type { FindQuery, FindResult } from '@cip/shared/read-store';
import type { Phone, ShippingAddress, TargetStatus, UserProgramRules } from '@cip/users/domain';
import type { UserView } from '@cip/users/read-models';

/** The caller of a users command: tenant plus the program rules that apply to it. */
export interface UsersCaller {
  distributorId: string;
  environment: Environment;
  program: UserProgramRules;
  /** Request id: becomes the events' correlation id. */
  requestId: string;
}

export interface CreateUserInput {
  email: string;
  firstName: string;
  lastName: string;
  countryOfResidence: string;
  shippingAddress?: ShippingAddress;
}

export interface UserListFilter {
  status?: string;
  email?: string;
}

/**
 * What the gateway can ask of the users context. The embedded runtime binds it to UsersService in the
 * same process; the distributed runtime binds it to a client of the users service.
 */
export interface UsersApi {
  createUser(caller: UsersCaller, input: CreateUserInput): Promise<UserView>;
  getUser(caller: UsersCaller, userId: string): Promise<UserView>;
  listUsers(
    caller: UsersCaller,
    filter: UserListFilter,
    page: Omit<FindQuery, 'filter'>,
  ): Promise<FindResult<UserView>>;
  setPhone(caller: UsersCaller, userId: string, phone: Phone): Promise<UserView>;
  updateShippingAddress(caller: UsersCaller, userId: string, address: ShippingAddress): Promise<UserView>;
  /** `cause` keys a saga's change: a cause already applied to the user changes nothing (redeliveries). */
  changeStatus(
    caller: UsersCaller,
    userId: string,
    to: TargetStatus,
    reason?: string,
    cause?: string,
  ): Promise<UserView>;
}

export const USERS_API = Symbol('USERS_API');
