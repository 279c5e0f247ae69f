import { IntegrationEvent, integrationEvent } from '@cip/shared/contracts';
import type { UserStatus } from './user.types';

/** Stream category of users (`usr-<uuid>`): the topic their events are published on. */
export const USERS_TOPIC = 'usr';

/** Every status change has the same shape; the event type names the new status. */
export type UserStatusChangedEvent<Type extends string = string> = IntegrationEvent<
  Type,
  { userId: string; previousStatus: UserStatus; reason: string | null; cause?: string; at: string }
>;

export type UserActivatedEvent = UserStatusChangedEvent<'UserActivated'>;
export type UserFrozenEvent = UserStatusChangedEvent<'UserFrozen'>;
export type UserDisabledEvent = UserStatusChangedEvent<'UserDisabled'>;
export type UserRevokedEvent = UserStatusChangedEvent<'UserRevoked'>;
export type UserDeletedEvent = UserStatusChangedEvent<'UserDeleted'>;

/** A user became active (KYC approved, or support re-activated it): wallets are provisioned on it. */
export const userActivated = integrationEvent<UserActivatedEvent>(USERS_TOPIC, 'UserActivated');
export const userFrozen = integrationEvent<UserFrozenEvent>(USERS_TOPIC, 'UserFrozen');
export const userDisabled = integrationEvent<UserDisabledEvent>(USERS_TOPIC, 'UserDisabled');
export const userRevoked = integrationEvent<UserRevokedEvent>(USERS_TOPIC, 'UserRevoked');
export const userDeleted = integrationEvent<UserDeletedEvent>(USERS_TOPIC, 'UserDeleted');

/**
 * An operator erased the user's personal data (the user's key is deleted right after): contexts that keep
 * copies of it in read models (the shipping address of physical cards) drop them. Nothing personal inside.
 */
export type UserErasedEvent = IntegrationEvent<
  'UserErased',
  { userId: string; erasedBy: string; reason: string; at: string }
>;
export const userErased = integrationEvent<UserErasedEvent>(USERS_TOPIC, 'UserErased');

/** The changes after which none of a user's cards may spend (cards will react to these). */
export const USER_STOPPED_EVENTS = [userFrozen, userDisabled, userRevoked, userDeleted] as const;
