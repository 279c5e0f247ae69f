import type { UserStatusForCards } from '@cip/cards/domain';
import { PROGRAM_DIRECTORY, type ProgramDirectory } from '@cip/distributors/contract';
import { Environment } from '@cip/shared/contracts';
import { defineSaga } from '@cip/shared/infrastructure';
import {
  USER_LIFECYCLE_API,
  type UserLifecycleApi,
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

/** The user statuses whose events this saga acts on (a user now `unverified` has no later event here). */
const FOLLOWED: ReadonlySet<string> = new Set(STATUS_OF.map(([, status]) => status));

/**
 * Issue 11: a user frozen, disabled, revoked or deleted stops all their cards. A frozen user's active cards
 * are frozen with the `user_frozen` block (a card its distributor had frozen gets the block only), so the
 * distributor cannot unfreeze them while the user is frozen (`card_unfreeze_blocked_error`); the other
 * three statuses never spend again, so their cards are revoked. A reactivated user lifts the block but
 * unfreezes nothing: the distributor decides when each card spends again.
 *
 * Each change is keyed by its cause, the user's status event, so a redelivered event changes nothing on a
 * card that has applied it, whatever happened to the card since.
 *
 * A status event the user has moved on from is skipped: when the user's status is now another one this
 * saga follows, the event that set it comes later in the log and puts the cards where they belong. This is
 * what makes the saga's first start in a deployment with history safe: its consumer group starts at the
 * beginning of the log, and a user frozen and reactivated long ago would otherwise have every card frozen
 * (by the old freeze) and left frozen (a reactivation unfreezes nothing). Comparing the event with the
 * card's creation would not do: the cards issued before that freeze would still be frozen for good.
 */
export const userStoppedCardsSaga = defineSaga<
  typeof EVENTS,
  [CardsService, Pick<UserLifecycleApi, 'findUser'>, ProgramDirectory]
>({
  group: 'saga.cards-user-stopped',
  on: EVENTS,
  inject: [CardsService, USER_LIFECYCLE_API, PROGRAM_DIRECTORY],
  async handle([cards, users, programs], event, ports) {
    const userStatus: UserStatusForCards | undefined = STATUS_OF.find(([type]) => type.is(event))?.[1];
    if (!userStatus) return;
    const { userId, reason } = event.data;
    const environment = ports.scope as Environment;
    const distributorId = event.metadata.distributorId ?? '';
    const correlationId = event.metadata.correlationId ?? event.metadata.eventId;
    const program = programs.programOf(distributorId);
    const user = program
      ? await users.findUser({ distributorId, environment, program, requestId: correlationId }, userId)
      : null;
    if (user && user.status !== userStatus && FOLLOWED.has(user.status)) return;
    await cards.applyUserStatus(environment, {
      distributorId,
      userId,
      userStatus,
      reason: `User ${userId} is ${userStatus}${reason ? `: ${reason}` : ''}`,
      cause: `user:${event.metadata.eventId}`,
      correlationId,
    });
  },
});
