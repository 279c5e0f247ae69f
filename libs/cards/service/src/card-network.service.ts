import type {
  CardForAuthorization,
  CardNetworkApi,
  CardVerificationApi,
  CardVerificationOutcome,
  CardVerificationMethod,
  NetworkCardReference,
  NetworkVerification,
} from '@cip/cards/contract';
import { cardDecider, isCard, PROGRAM_DEFAULT_SPENDING_CONTROLS, type CardRecord } from '@cip/cards/domain';
import type { CardView } from '@cip/cards/read-models';
import { cardsProjection } from '@cip/cards/read-models';
import type { CardVault } from '@cip/cards/vault';
import { DomainError, notFound, type Environment } from '@cip/shared/contracts';
import { loadState, type EventStore } from '@cip/shared/eventing';
import type { ReadStore } from '@cip/shared/read-store';

export interface CardNetworkPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits until the cards projection has caught up (a card issued a moment ago). */
  settle(environment: Environment): Promise<void>;
  vault(environment: Environment): CardVault;
  verification: CardVerificationApi;
}

/** `YYMM` (DE-014) as the card's expiry month and year; null when it is not one. */
function parseExpiry(expiry: string): { expMonth: number; expYear: number } | null {
  if (typeof expiry !== 'string' || !/^\d{4}$/.test(expiry)) return null;
  const expMonth = Number(expiry.slice(2));
  return expMonth >= 1 && expMonth <= 12 ? { expMonth, expYear: 2000 + Number(expiry.slice(0, 2)) } : null;
}

/**
 * The card network's door to cards (`CardNetworkApi`): PAN to card through the vault's PAN index, then the
 * card's reference to the card through the cards read model (`vaultRef`), the card's state from its stream.
 * CVV2 and PIN are checked by the vault and their outcomes counted by the card decider. Nothing here keeps
 * or logs the PAN, the CVV2 or the PIN.
 */
export class CardNetworkService implements CardNetworkApi {
  constructor(private readonly ports: CardNetworkPorts) {}

  async cardForAuthorization(
    environment: Environment,
    card: NetworkCardReference,
  ): Promise<CardForAuthorization | null> {
    const expiry = parseExpiry(card?.expiry);
    if (!expiry || typeof card.pan !== 'string') return null;
    const found = await this.ports.vault(environment).findByPan(card.pan, expiry);
    if (!found) return null;
    const cardId = await this.cardIdOf(environment, found.vaultRef);
    if (!cardId) return null;
    const record = await this.record(environment, cardId);
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
    const outcome = await this.ports.verification.recordVerification(environment, cardId, {
      authorizationId: entered.authorizationId,
      method,
      ok,
    });
    return { ...outcome, ok };
  }

  private async record(environment: Environment, cardId: string): Promise<CardRecord> {
    const { state } = await loadState(this.ports.eventStore(environment), cardDecider, cardId);
    if (!isCard(state)) throw notFound('Card', cardId);
    return state;
  }

  /** The card holding a vault reference (the read model; settled once when a fresh card is not in it yet). */
  private async cardIdOf(environment: Environment, vaultRef: string): Promise<string | null> {
    const find = async () => {
      const { items } = await this.ports.readStore(environment).find<CardView>(cardsProjection.collection, {
        filter: { vaultRef },
        sort: { field: 'createdAt', direction: 'asc' },
        page: 0,
        limit: 1,
      });
      return items[0]?.id ?? null;
    };
    const cardId = await find();
    if (cardId) return cardId;
    await this.ports.settle(environment);
    return find();
  }
}
