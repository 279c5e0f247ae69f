import type { ProjectedEvent, Projection } from '@cip/shared/read-store';
import { evolveUser, isUser, userEvents, UserState } from '@cip/users/domain';
import { toUserView, UserView } from './user-view';

/**
 * Back from the view to the decider's state, so the projection folds with the domain's own evolve. The
 * view does not keep the applied causes nor the time of an erasure: only the decider decides with them.
 */
function toState(view: UserView | null): UserState {
  if (!view) return { status: 'absent' };
  const { id, ...rest } = view;
  return { ...rest, userId: id, erasedAt: null, appliedCauses: [] } as UserState;
}

/** The `users` read model: one document per user stream, for lists and filters. */
export const usersProjection: Projection<UserView> = {
  name: 'users',
  collection: 'users',
  topics: ['usr'],
  evolve(doc: UserView | null, event: ProjectedEvent): UserView | null {
    const state = evolveUser(toState(doc), userEvents.read(event));
    return isUser(state) ? toUserView(state) : null;
  },
};
