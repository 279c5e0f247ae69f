import type { PublicEventDraft, PublicEventMapper } from '@cip/shared/read-store';
import { USER_PERSONAL_EVENT_FIELDS } from '@cip/users/contract';
import { userEvents } from '@cip/users/domain';
import type { UserView } from './user-view';
import { usersProjection } from './users.projection';

const STATUS_EVENT_NAMES = {
  UserActivated: 'user.activated',
  UserUnverified: 'user.unverified',
  UserFrozen: 'user.frozen',
  UserDisabled: 'user.disabled',
  UserRevoked: 'user.revoked',
  UserDeleted: 'user.deleted',
} as const;

/** User domain events -> public `user.*` Events (spec part 6, "User events"). */
export const userPublicEvents: PublicEventMapper<UserView> = {
  topic: 'usr',
  snapshot: usersProjection,
  toPublicEvents(recorded, snapshot): PublicEventDraft[] {
    const event = userEvents.read(recorded);
    const userId = event.data.userId;
    const base = { eventTargetId: userId, userId };
    switch (event.type) {
      case 'UserCreated':
        return [{ ...base, eventName: 'user.created' }];
      case 'UserPhoneNumberSet':
        return [{ ...base, eventName: 'user.phoneNumberSet', fields: { phone: event.data.phone } }];
      case 'UserShippingAddressUpdated':
        return [{ ...base, eventName: 'user.shippingAddressUpdated' }];
      case 'UserActivated':
      case 'UserUnverified':
      case 'UserFrozen':
      case 'UserDisabled':
      case 'UserRevoked':
      case 'UserDeleted':
        return [{ ...base, eventName: STATUS_EVENT_NAMES[event.type], fields: { status: snapshot?.status } }];
      case 'UserErased':
        // The spec has no public Event for an erasure: the distributor learnt of the closing (user.deleted),
        // and the Events recorded so far are redacted (`erasure`).
        return [];
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
  erasure: {
    userOf: (recorded) => (recorded.type === 'UserErased' ? userEvents.read(recorded).data.userId : null),
    redact: (data) =>
      Object.fromEntries(
        Object.entries(data).map(([field, value]) => [
          field,
          (USER_PERSONAL_EVENT_FIELDS as readonly string[]).includes(field) ? null : value,
        ]),
      ),
  },
};
