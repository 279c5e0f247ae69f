import {
  domainEventReader,
  type DomainEvent,
  type Erasable,
  type PersonalDataPolicy,
} from '@cip/shared/contracts';
import type {
  TargetStatus as PublishedTargetStatus,
  UserErasedEvent,
  UserStatusChangedEvent,
} from '@cip/users/contract';
import type { Phone, ShippingAddress, UserStatus } from './user.types';

// ---------------------------------------------------------------------------------------------------
// Domain events of a user stream (`usr-<uuid>`). The personal fields (`Erasable`) are sealed in the log
// with the user's own key (`userPersonalData`) and read as null once the user was erased.
// ---------------------------------------------------------------------------------------------------

export type UserCreated = DomainEvent<
  'UserCreated',
  {
    userId: string;
    distributorId: string;
    email: Erasable<string>;
    firstName: Erasable<string>;
    lastName: Erasable<string>;
    countryOfResidence: string;
    shippingAddress: ShippingAddress | null;
    createdAt: string;
  }
>;

export type UserPhoneNumberSet = DomainEvent<
  'UserPhoneNumberSet',
  { userId: string; phone: Erasable<Phone>; previousPhone: Phone | null; at: string }
>;

export type UserShippingAddressUpdated = DomainEvent<
  'UserShippingAddressUpdated',
  { userId: string; shippingAddress: Erasable<ShippingAddress>; source: 'api' | 'kyc'; at: string }
>;

/**
 * An operator erased the user's personal data (a data subject's erasure request): the user's key is
 * deleted right after, so every personal field of its events (and of its KYCs') reads as null from then
 * on. Carries who and why, nothing personal; the user stays as a pseudonymous record.
 */
export type UserErased = DomainEvent<
  'UserErased',
  { userId: string; erasedBy: string; reason: string; at: string }
>;

/**
 * Every status change has the same shape; the event type names the new status. `cause` is present when
 * the command named one (changes made by sagas); events recorded before causes existed have none.
 */
type StatusChange<Type extends string> = DomainEvent<
  Type,
  { userId: string; previousStatus: UserStatus; reason: string | null; cause?: string; at: string }
>;

export type UserActivated = StatusChange<'UserActivated'>;
export type UserUnverified = StatusChange<'UserUnverified'>;
export type UserFrozen = StatusChange<'UserFrozen'>;
export type UserDisabled = StatusChange<'UserDisabled'>;
export type UserRevoked = StatusChange<'UserRevoked'>;
export type UserDeleted = StatusChange<'UserDeleted'>;

export type UserStatusChanged =
  UserActivated | UserUnverified | UserFrozen | UserDisabled | UserRevoked | UserDeleted;

export type UserEvent =
  UserCreated | UserPhoneNumberSet | UserShippingAddressUpdated | UserStatusChanged | UserErased;

export const STATUS_EVENT_TYPES = {
  active: 'UserActivated',
  unverified: 'UserUnverified',
  frozen: 'UserFrozen',
  disabled: 'UserDisabled',
  revoked: 'UserRevoked',
  deleted: 'UserDeleted',
} as const satisfies Record<PublishedTargetStatus, UserStatusChanged['type']>;

export type TargetStatus = keyof typeof STATUS_EVENT_TYPES;

/**
 * The users contract publishes status changes as integration events (`userActivated`, ...): their data must
 * stay what the domain writes, or the build fails here rather than in a saga of another context.
 */
export const STATUS_CHANGES_MATCH_THE_CONTRACT: UserStatusChanged['data'] extends UserStatusChangedEvent['data']
  ? true
  : never = true;

/** The same for the erasure (`userErased`). */
export const ERASURE_MATCHES_THE_CONTRACT: UserErased['data'] extends UserErasedEvent['data'] ? true : never =
  true;

export const STATUS_OF_EVENT: Record<UserStatusChanged['type'], TargetStatus> = {
  UserActivated: 'active',
  UserUnverified: 'unverified',
  UserFrozen: 'frozen',
  UserDisabled: 'disabled',
  UserRevoked: 'revoked',
  UserDeleted: 'deleted',
};

/** How user streams are read (no upcaster yet: every user event is still in its first shape). */
export const userEvents = domainEventReader<UserEvent>();

/** The personal data of user events: all of it the user's own (ARCHITECTURE.md, "Personal data"). */
export const userPersonalData = {
  UserCreated: { subject: 'userId', fields: ['email', 'firstName', 'lastName', 'shippingAddress'] },
  UserPhoneNumberSet: { subject: 'userId', fields: ['phone', 'previousPhone'] },
  UserShippingAddressUpdated: { subject: 'userId', fields: ['shippingAddress'] },
} as const satisfies PersonalDataPolicy;
