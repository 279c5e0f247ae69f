import {
  CARD_REVEAL_PATH,
  REVEAL_LINK_TTL_MS,
  type CardRevealApi,
  type CardRevealLink,
  type RevealedCardDetails,
} from '@cip/cards/contract';
import { CardCommand, cardDecider, CardRecord, isCard } from '@cip/cards/domain';
import type { CardVault } from '@cip/cards/vault';
import { Caller, DomainError, Environment, ENVIRONMENTS, ownedBy } from '@cip/shared/contracts';
import { callerContext, EventStore, handleCommand, loadState } from '@cip/shared/eventing';
import type { Clock } from '@cip/shared/runtime';

export interface CardRevealPorts {
  eventStore(environment: Environment): EventStore;
  vault(environment: Environment): CardVault;
}

/**
 * The single-use reveal of a card's PAN, CVV2 and expiry (API-DECISIONS, "Cards"). A link is a random
 * token the vault keeps only the SHA-256 of, durably: after a restart a link works exactly as before (once,
 * until it expires). Both the link and the reveal are events of the card's stream, for audit: who asked
 * (the distributor and its request id), when, and when the page was shown; never the secrets.
 */
export class CardRevealService implements CardRevealApi {
  private baseUrl: string | null = null;

  constructor(
    private readonly ports: CardRevealPorts,
    private readonly clock: Clock,
  ) {}

  /** The address users reach the platform at; known once the platform listens (PUBLIC_BASE_URL or its URL). */
  usePublicBaseUrl(url: string): void {
    this.baseUrl = url.replace(/\/+$/, '');
  }

  async createRevealLink(caller: Caller, cardId: string): Promise<CardRevealLink> {
    if (!this.baseUrl) throw new Error('The public base URL of card reveal links is not set yet');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + REVEAL_LINK_TTL_MS);
    // Recorded first: a link that fails to be stored afterwards leaves an audit line too many, never a
    // working link without one.
    const { state } = await handleCommand(
      this.ports.eventStore(caller.environment),
      cardDecider,
      cardId,
      (card): CardCommand => {
        ownedBy(caller, isCard(card) ? card : null, 'Card', cardId);
        return {
          type: 'IssueRevealLink',
          data: { expiresAt: expiresAt.toISOString(), now: now.toISOString() },
        };
      },
      callerContext(now, caller),
    );
    const token = await this.ports.vault(caller.environment).createRevealLink({
      vaultRef: (state as CardRecord).vaultRef,
      cardId,
      distributorId: caller.distributorId,
      requestId: caller.requestId,
      now,
      expiresAt,
    });
    return { url: `${this.baseUrl}${CARD_REVEAL_PATH}/${token}`, expiresAt: expiresAt.toISOString() };
  }

  async revealLinkUsable(token: string): Promise<boolean> {
    const now = this.clock.now();
    for (const environment of ENVIRONMENTS) {
      const link = await this.ports.vault(environment).findRevealLink(token, now);
      if (!link) continue;
      // Revoked since the link was made: the page shows nothing, like for a used link.
      const { state } = await loadState(this.ports.eventStore(environment), cardDecider, link.cardId);
      return isCard(state) && state.status !== 'revoked';
    }
    return false;
  }

  async revealCardDetails(token: string, requestId: string): Promise<RevealedCardDetails | null> {
    const now = this.clock.now();
    // A token says nothing of its environment: each environment's vault is asked (at most two lookups).
    for (const environment of ENVIRONMENTS) {
      const vault = this.ports.vault(environment);
      const link = await vault.useRevealLink(token, now);
      if (!link) continue;
      try {
        await handleCommand(
          this.ports.eventStore(environment),
          cardDecider,
          link.cardId,
          { type: 'RecordCardReveal', data: { linkRequestId: link.requestId, now: now.toISOString() } },
          {
            occurredAt: now.toISOString(),
            distributorId: link.distributorId,
            environment,
            correlationId: link.requestId,
            causationId: requestId,
          },
        );
      } catch (error) {
        // Revoked since the link was made: the page shows nothing, like for a used link.
        if (error instanceof DomainError && error.code === 'invalid_state_transition') return null;
        throw error;
      }
      const { pan, cvv2, expMonth, expYear } = await vault.revealForHostedPage(link.vaultRef);
      return { pan, cvv2, expMonth, expYear };
    }
    return null;
  }
}
