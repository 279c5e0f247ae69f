import type { CardholderDetails, CardSandboxApi } from '@cip/cards/contract';
import { isCard } from '@cip/cards/domain';
import type { CardVault } from '@cip/cards/vault';
import { Caller, DomainError, Environment, ownedBy } from '@cip/shared/contracts';
import type { EventStore } from '@cip/shared/eventing';
import { CardStates } from './card-states';

export interface CardSandboxPorts {
  eventStore(environment: Environment): EventStore;
  vault(environment: Environment): CardVault;
  /** The cards' states, kept (shared with the card network); one of its own by default. */
  cards?: CardStates;
}

/**
 * The sandbox card network playing the cardholder (`CardSandboxApi`): the card's PAN, CVV2 and expiry from
 * the vault, as the hosted reveal page reads them. Sandbox only: production card data never leaves the vault
 * this way. Records nothing (a read) and never logs the answer.
 */
export class CardSandboxService implements CardSandboxApi {
  private readonly cards: CardStates;

  constructor(private readonly ports: CardSandboxPorts) {
    this.cards = ports.cards ?? new CardStates(ports.eventStore);
  }

  async cardholderDetails(caller: Caller, cardId: string): Promise<CardholderDetails> {
    if (caller.environment !== 'sandbox') {
      throw new DomainError('sandbox_only', 'Card details for simulations exist in the sandbox only');
    }
    const state = await this.cards.of(caller.environment, cardId);
    const card = ownedBy(caller, isCard(state) ? state : null, 'Card', cardId);
    const { pan, cvv2, expMonth, expYear } = await this.ports
      .vault(caller.environment)
      .revealForHostedPage(card.vaultRef);
    return { pan, cvv2, expMonth, expYear };
  }
}
