import type { UserStatusForCards } from '@cip/cards/domain';
import { Environment } from '@cip/shared/contracts';
import { defineSaga } from '@cip/shared/infrastructure';
import {
  userActivated,
  userDeleted,
  userDisabled,
  userFrozen,
  userRevoked,
  USER_STOPPED_EVENTS,
} from '@cip/users/contract';
import { CardsService } from '../cards.service';

const EVENTS = [...USER_STOPPED_EVENTS, userActivated] as const;

const STATUS_OF = [
  [userFrozen, 'frozen'],
  [userDisabled, 'disabled'],
  [userRevoked, 'revoked'],
  [userDeleted, 'deleted'],
  [userActivated, 'active'],
] as const;

/**
 * Issue 11: a user frozen, disabled, revoked or deleted stops all their cards. A frozen user's active cards
 * are frozen with the `user_frozen` block (a card its distributor had frozen gets the block only), so the
 * distributor cannot unfreeze them while the user is frozen (`card_unfreeze_blocked_error`); the other
 * three statuses never spend again, so their cards are revoked. A reactivated user lifts the block but
 * unfreezes nothing: the distributor decides when each card spends again.
 *
 * Each change is keyed by its cause, the user's status event, so a redelivered event changes nothing on a
 * card that has applied it, whatever happened to the card since.
 */
export const userStoppedCardsSaga = defineSaga<typeof EVENTS, [CardsService]>({
  group: 'saga.cards-user-stopped',
  on: EVENTS,
  inject: [CardsService],
  async handle([cards], event, ports) {
    const userStatus: UserStatusForCards | undefined = STATUS_OF.find(([type]) => type.is(event))?.[1];
    if (!userStatus) return;
    const { userId, reason } = event.data;
    await cards.applyUserStatus(ports.scope as Environment, {
      distributorId: event.metadata.distributorId ?? '',
      userId,
      userStatus,
      reason: `User ${userId} is ${userStatus}${reason ? `: ${reason}` : ''}`,
      cause: `user:${event.metadata.eventId}`,
      correlationId: event.metadata.correlationId ?? event.metadata.eventId,
    });
  },
});
