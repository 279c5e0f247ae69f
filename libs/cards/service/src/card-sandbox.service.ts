import type { CardholderDetails, CardSandboxApi } from '@cip/cards/contract';
import { cardDecider, isCard } from '@cip/cards/domain';
import type { CardVault } from '@cip/cards/vault';
import { Caller, DomainError, Environment, ownedBy } from '@cip/shared/contracts';
import { EventStore, loadState } from '@cip/shared/eventing';

export interface CardSandboxPorts {
  eventStore(environment: Environment): EventStore;
  vault(environment: Environment): CardVault;
}

/**
 * The sandbox card network playing the cardholder (`CardSandboxApi`): the card's PAN, CVV2 and expiry from
 * the vault, as the hosted reveal page reads them. Sandbox only: production card data never leaves the vault
 * this way. Records nothing (a read) and never logs the answer.
 */
export class CardSandboxService implements CardSandboxApi {
  constructor(private readonly ports: CardSandboxPorts) {}

  async cardholderDetails(caller: Caller, cardId: string): Promise<CardholderDetails> {
    if (caller.environment !== 'sandbox') {
      throw new DomainError('sandbox_only', 'Card details for simulations exist in the sandbox only');
    }
    const { state } = await loadState(this.ports.eventStore(caller.environment), cardDecider, cardId);
    const card = ownedBy(caller, isCard(state) ? state : null, 'Card', cardId);
    const { pan, cvv2, expMonth, expYear } = await this.ports
      .vault(caller.environment)
      .revealForHostedPage(card.vaultRef);
    return { pan, cvv2, expMonth, expYear };
  }
}
