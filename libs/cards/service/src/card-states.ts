import { cardDecider, isCard, type CardEvent, type CardState } from '@cip/cards/domain';
import type { Environment } from '@cip/shared/contracts';
import { KeptStreamStates, type EventStore, type StreamFold } from '@cip/shared/eventing';

/** Cards whose folded state is kept (each well under a kilobyte). */
const CARDS_HELD = 10_000;

/** The card decider's fold without the card's personal data (see `CardStates`). */
const FOLD_WITHOUT_ADDRESS: StreamFold<CardEvent, CardState> = {
  initialState: cardDecider.initialState,
  events: cardDecider.events,
  evolve: (state, event) => {
    const next = cardDecider.evolve(state, event);
    return isCard(next) && next.shippingAddress !== null ? { ...next, shippingAddress: null } : next;
  },
};

/**
 * The cards as the card network reads them (an authorization reads its card two or three times: the sandbox
 * cardholder's details, the lookup by PAN, the CVV2 check): folded states kept per store, each read still
 * reading the card's stream from the kept revision on, so every event appended since, by any process, is
 * folded in. The network needs none of a card's personal data: the shipping address is left out of what is
 * folded and kept, so no one's address stays in memory here after an erasure.
 */
export class CardStates {
  private readonly kept = new KeptStreamStates(FOLD_WITHOUT_ADDRESS, CARDS_HELD);

  constructor(private readonly eventStore: (environment: Environment) => EventStore) {}

  async of(environment: Environment, cardId: string): Promise<CardState> {
    return (await this.kept.load(this.eventStore(environment), cardId)).state;
  }
}
