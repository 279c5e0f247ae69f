import type { Phone, ShippingAddress, UserProgramRules, UserStatus } from './user.types';
import type { TargetStatus } from './user.events';

// ---------------------------------------------------------------------------------------------------
// Commands of the user decider. Time (`now`) and ids arrive in the command: the domain never reads them.
// ---------------------------------------------------------------------------------------------------

export interface CreateUser {
  type: 'CreateUser';
  data: {
    userId: string;
    distributorId: string;
    email: string;
    firstName: string;
    lastName: string;
    countryOfResidence: string;
    shippingAddress?: ShippingAddress;
    program: UserProgramRules;
    now: string;
  };
}

export interface SetUserPhone {
  type: 'SetUserPhone';
  data: { phone: Phone; now: string };
}

export interface UpdateShippingAddress {
  type: 'UpdateShippingAddress';
  /** `kyc`: captured by a verified shipping KYC (allowed for every program); `api`: B2B distributors only. */
  data: { shippingAddress: ShippingAddress; source: 'api' | 'kyc'; program: UserProgramRules; now: string };
}

/**
 * Status commands for sagas and operators: activate, freeze, disable, revoke, delete. A saga names the
 * `cause` of its change (e.g. `kyc:<kycId>:declined`): a cause is applied once, so a redelivered event
 * changes nothing even when the user's status was changed back in the meantime.
 */
export interface ChangeUserStatus {
  type: 'ChangeUserStatus';
  data: {
    to: TargetStatus;
    reason?: string;
    cause?: string;
    /**
     * The status the requester saw and decided on (an operator's permission depends on it): a user found in
     * another status is refused (409 invalid_state_transition), so a concurrent change is never overridden.
     */
    expectedFrom?: UserStatus;
    now: string;
  };
}

/** An operator's erasure of the user's personal data (a closed user only: see the decider). */
export interface EraseUser {
  type: 'EraseUser';
  data: { erasedBy: string; reason: string; now: string };
}

export type UserCommand = CreateUser | SetUserPhone | UpdateShippingAddress | ChangeUserStatus | EraseUser;
