import type {
  CardForAuthorization,
  CardNetworkApi,
  CardVerificationApi,
  CardVerificationOutcome,
  CardVerificationMethod,
  NetworkCardReference,
  NetworkVerification,
} from '@cip/cards/contract';
import {
  cardIdOfVaultRef,
  isCard,
  PROGRAM_DEFAULT_SPENDING_CONTROLS,
  type CardRecord,
} from '@cip/cards/domain';
import type { CardVault } from '@cip/cards/vault';
import { DomainError, notFound, type Environment } from '@cip/shared/contracts';
import type { EventStore } from '@cip/shared/eventing';
import { CardStates } from './card-states';

export interface CardNetworkPorts {
  eventStore(environment: Environment): EventStore;
  vault(environment: Environment): CardVault;
  verification: CardVerificationApi;
  /** The cards' states, kept (shared with the sandbox cardholder); one of the network's own by default. */
  cards?: CardStates;
}

/** `YYMM` (DE-014) as the card's expiry month and year; null when it is not one. */
function parseExpiry(expiry: string): { expMonth: number; expYear: number } | null {
  if (typeof expiry !== 'string' || !/^\d{4}$/.test(expiry)) return null;
  const expMonth = Number(expiry.slice(2));
  return expMonth >= 1 && expMonth <= 12 ? { expMonth, expYear: 2000 + Number(expiry.slice(0, 2)) } : null;
}

/** What the network's messages need of a card (no PAN, no secret). */
function cardForNetwork(cardId: string, record: CardRecord): CardForAuthorization {
  return {
    cardId,
    distributorId: record.distributorId,
    userId: record.userId,
    walletId: record.walletId,
    status: record.status,
    blocks: [...record.blocks],
    expMonth: record.expMonth,
    expYear: record.expYear,
    spendingControls: record.spendingControls ?? PROGRAM_DEFAULT_SPENDING_CONTROLS,
  };
}

/**
 * The card network's door to cards (`CardNetworkApi`): PAN to vault reference through the vault's PAN
 * index, vault reference to card id (`cardIdOfVaultRef`), the card's state from its stream.
 * CVV2 and PIN are checked by the vault and their outcomes counted by the card decider. Nothing here keeps
 * or logs the PAN, the CVV2 or the PIN.
 */
export class CardNetworkService implements CardNetworkApi {
  private readonly cards: CardStates;

  constructor(private readonly ports: CardNetworkPorts) {
    this.cards = ports.cards ?? new CardStates(ports.eventStore);
  }

  async cardForAuthorization(
    environment: Environment,
    card: NetworkCardReference,
  ): Promise<CardForAuthorization | null> {
    const expiry = parseExpiry(card?.expiry);
    if (!expiry || typeof card.pan !== 'string') return null;
    const found = await this.ports.vault(environment).findByPan(card.pan, expiry);
    if (!found) return null;
    const cardId = cardIdOfVaultRef(found.vaultRef);
    if (!cardId) return null;
    const state = await this.cards.of(environment, cardId);
    // The card is recorded after its number is issued: a number whose card was never recorded is unknown.
    if (!isCard(state) || state.vaultRef !== found.vaultRef) return null;
    return cardForNetwork(cardId, state);
  }

  async cardForClearing(environment: Environment, cardId: string): Promise<CardForAuthorization | null> {
    if (typeof cardId !== 'string' || cardId.length === 0) return null;
    const state = await this.cards.of(environment, cardId);
    return isCard(state) ? cardForNetwork(cardId, state) : null;
  }

  verifyCvv2(
    environment: Environment,
    cardId: string,
    entered: NetworkVerification,
  ): Promise<CardVerificationOutcome & { ok: boolean }> {
    return this.verify(environment, cardId, entered, 'cvv2', (vault, record) =>
      /^\d{3}$/.test(entered.value) ? vault.verifyCvv2(record.vaultRef, entered.value, record) : false,
    );
  }

  verifyPin(
    environment: Environment,
    cardId: string,
    entered: NetworkVerification,
  ): Promise<CardVerificationOutcome & { ok: boolean }> {
    return this.verify(environment, cardId, entered, 'pin', (vault, record) =>
      vault.verifyPin(record.vaultRef, entered.value),
    );
  }

  private async verify(
    environment: Environment,
    cardId: string,
    entered: NetworkVerification,
    method: CardVerificationMethod,
    check: (vault: CardVault, record: CardRecord) => Promise<boolean> | boolean,
  ): Promise<CardVerificationOutcome & { ok: boolean }> {
    if (typeof entered?.value !== 'string') {
      throw new DomainError('validation_error', `The ${method} entered is required`);
    }
    const record = await this.record(environment, cardId);
    const ok = await check(this.ports.vault(environment), record);
    if (ok && record.consecutiveFailures === 0) {
      // A pass with no failure to reset records nothing (the decider appends no event for it): answered from
      // the card just read, without loading it again to decide nothing (the authorization hot path).
      return {
        cardId,
        status: record.status,
        blocked: record.blocks.includes('pin_cvv_attempts'),
        consecutiveFailures: 0,
        ok,
      };
    }
    const outcome = await this.ports.verification.recordVerification(environment, cardId, {
      authorizationId: entered.authorizationId,
      method,
      ok,
    });
    return { ...outcome, ok };
  }

  private async record(environment: Environment, cardId: string): Promise<CardRecord> {
    const state = await this.cards.of(environment, cardId);
    if (!isCard(state)) throw notFound('Card', cardId);
    return state;
  }
}
