import { CARDS_TOPIC } from '@cip/cards/contract';
import { cardEvents, CardState, evolveCard, isCard, NO_HOLDS_STATE } from '@cip/cards/domain';
import type { ProjectedEvent, Projection } from '@cip/shared/read-store';
import { CardView, spendingControlsOfView, toCardView } from './card-view';

/**
 * Back from the view to the decider's state, so the projection folds with the domain's own evolve. The
 * view has no vault reference (it must not reach a read model), so the state rebuilt here has none either;
 * nor the applied causes, the replacement and the PIN/CVV2 count, which only the decider needs (they are read
 * from the card's stream). The blocks are shown on the view, so they come back from it.
 * Spending controls come back as they were shown (the defaults included), in minor units again.
 */
function toState(view: CardView | null): CardState {
  if (!view) return { status: 'absent' };
  const { id, maskedPan: _maskedPan, ...rest } = view;
  return {
    ...rest,
    cardId: id,
    vaultRef: '',
    spendingControls: spendingControlsOfView(view),
    blocks: view.blocks ?? [],
    appliedCauses: [],
    replacedBy: null,
    ...NO_HOLDS_STATE,
  } as CardState;
}

/** The `cards` read model: one document per card stream, for lists and their filters (userId, status). */
export const cardsProjection: Projection<CardView> = {
  name: 'cards',
  collection: 'cards',
  topics: [CARDS_TOPIC],
  evolve(doc: CardView | null, event: ProjectedEvent): CardView | null {
    const state = evolveCard(toState(doc), cardEvents.read(event));
    return isCard(state) ? toCardView(state) : null;
  },
};
