import { Caller, defineContext, type FindPage, type FindResult } from '@cip/shared/contracts';
import type { Phone, ShippingAddress, TargetStatus, UserStatus } from './user.types';
import type { UserView } from './user-view';

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

/** What a distributor can do with its users (the /v1/users endpoints). */
export interface UsersApi {
  createUser(caller: Caller, input: CreateUserInput): Promise<UserView>;
  getUser(caller: Caller, userId: string): Promise<UserView>;
  listUsers(caller: Caller, filter: UserListFilter, page: FindPage): Promise<FindResult<UserView>>;
  setPhone(caller: Caller, userId: string, phone: Phone): Promise<UserView>;
  /** B2B programs only (`403 forbidden` otherwise). */
  updateShippingAddress(caller: Caller, userId: string, address: ShippingAddress): Promise<UserView>;
}

export const USERS_API = Symbol('USERS_API');

export const usersContract = defineContext<UsersApi>({
  name: 'users',
  token: USERS_API,
  methods: {
    createUser: ['caller', 'input'],
    getUser: ['caller', 'userId'],
    listUsers: ['caller', 'filter', 'page'],
    setPhone: ['caller', 'userId', 'phone'],
    updateShippingAddress: ['caller', 'userId', 'address'],
  },
});

/**
 * What other contexts (KYC today; cards and support tomorrow) and operators do to a user's lifecycle. A
 * `cause` keys a saga's change: a cause already applied to the user changes nothing (redeliveries), even if
 * the user's status changed since.
 */
export interface UserLifecycleApi {
  /** The user, or null when it does not exist or belongs to another distributor. */
  findUser(caller: Caller, userId: string): Promise<UserView | null>;
  /**
   * The user's status alone (null: no such user, or another distributor's), read without opening the user's
   * personal data: no data key, no decryption. For hot paths that only need the status (card authorizations).
   */
  userStatus(caller: Caller, userId: string): Promise<UserStatus | null>;
  /**
   * The caller's user holding this phone number (E.164, `+33612345678`), or null: found through the phone's
   * reservation (no scan of personal data). For operators' search (the backoffice).
   */
  findUserByPhone(caller: Caller, phone: string): Promise<UserView | null>;
  /**
   * `expectedFrom`: the status the caller decided on (an operator's role check reads it first); the change is
   * refused (409 invalid_state_transition) when the user is in another status by then.
   */
  changeStatus(
    caller: Caller,
    userId: string,
    to: TargetStatus,
    reason?: string,
    cause?: string,
    expectedFrom?: UserStatus,
  ): Promise<UserView>;
  /** The address a verified shipping KYC captured (every program; `user.shippingAddressUpdated`). */
  setVerifiedShippingAddress(caller: Caller, userId: string, address: ShippingAddress): Promise<UserView>;
}

export const USER_LIFECYCLE_API = Symbol('USER_LIFECYCLE_API');

export const userLifecycleContract = defineContext<UserLifecycleApi>({
  name: 'users.lifecycle',
  token: USER_LIFECYCLE_API,
  methods: {
    findUser: ['caller', 'userId'],
    userStatus: ['caller', 'userId'],
    findUserByPhone: ['caller', 'phone'],
    changeStatus: ['caller', 'userId', 'to', 'reason', 'cause', 'expectedFrom'],
    setVerifiedShippingAddress: ['caller', 'userId', 'address'],
  },
});
