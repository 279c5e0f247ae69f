import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';
import type { TargetStatus as PublishedTargetStatus, UserStatusChangedEvent } from '@cip/users/contract';
import type { Phone, ShippingAddress, UserStatus } from './user.types';

// ---------------------------------------------------------------------------------------------------
// Domain events of a user stream (`usr-<uuid>`)
// ---------------------------------------------------------------------------------------------------

export type UserCreated = DomainEvent<
  'UserCreated',
  {
    userId: string;
    distributorId: string;
    email: string;
    firstName: string;
    lastName: string;
    countryOfResidence: string;
    shippingAddress: ShippingAddress | null;
    createdAt: string;
  }
>;

export type UserPhoneNumberSet = DomainEvent<
  'UserPhoneNumberSet',
  { userId: string; phone: Phone; previousPhone: Phone | null; at: string }
>;

export type UserShippingAddressUpdated = DomainEvent<
  'UserShippingAddressUpdated',
  { userId: string; shippingAddress: ShippingAddress; source: 'api' | 'kyc'; at: string }
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

export type UserEvent = UserCreated | UserPhoneNumberSet | UserShippingAddressUpdated | UserStatusChanged;

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
