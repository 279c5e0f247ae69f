import { Caller, defineContext, type FindPage, type FindResult } from '@cip/shared/contracts';
import type { CardStatus, CardType } from './card.types';
import type { CardView } from './card-view';

export interface CreateCardInput {
  userId: string;
  type: CardType;
}

/**
 * A spending controls update (`PUT /v1/cards/{id}/spending-controls` replaces them whole), limit amounts in
 * the platform's minor units. Every field is checked by the cards domain, whatever its declared type.
 */
export interface SpendingControlsUpdate {
  limits?: readonly { amount: number; interval: string }[];
  /** Omitted: the program's default groups; `[]` lifts every group block. */
  blockedMccGroups?: readonly string[];
  blockedMccs?: readonly string[];
  allowedMccs?: readonly string[];
}

export interface CardListFilter {
  userId?: string;
  status?: CardStatus;
}

/**
 * What a distributor can do with its cards (the /v1/cards endpoints). Status changes already in effect
 * (freezing a frozen card) are accepted and change nothing, so a retried call is harmless.
 */
export interface CardsApi {
  /** For an active user with a provisioned wallet (`409 user_not_active`, `409 create_wallet_error`). */
  createCard(caller: Caller, input: CreateCardInput): Promise<CardView>;
  getCard(caller: Caller, cardId: string): Promise<CardView>;
  listCards(caller: Caller, filter: CardListFilter, page: FindPage): Promise<FindResult<CardView>>;
  activateCard(caller: Caller, cardId: string): Promise<CardView>;
  freezeCard(caller: Caller, cardId: string): Promise<CardView>;
  unfreezeCard(caller: Caller, cardId: string): Promise<CardView>;
  /** Terminal: a revoked card never spends again. */
  revokeCard(caller: Caller, cardId: string): Promise<CardView>;
  /**
   * Replaces the card's spending controls (`400 validation_error` naming each failing field, `422
   * amount_too_large`); the controls it already has change nothing. A revoked card is refused.
   */
  updateSpendingControls(caller: Caller, cardId: string, update: SpendingControlsUpdate): Promise<CardView>;
}

export const CARDS_API = Symbol('CARDS_API');

export const cardsContract = defineContext<CardsApi>({
  name: 'cards',
  token: CARDS_API,
  methods: {
    createCard: ['caller', 'input'],
    getCard: ['caller', 'cardId'],
    listCards: ['caller', 'filter', 'page'],
    activateCard: ['caller', 'cardId'],
    freezeCard: ['caller', 'cardId'],
    unfreezeCard: ['caller', 'cardId'],
    revokeCard: ['caller', 'cardId'],
    updateSpendingControls: ['caller', 'cardId', 'update'],
  },
});

/**
 * What a digital wallet needs of a card to provision a token for it: the PAN and expiry. Only the
 * tokenization context calls this, to seal them at once into a provider's encrypted provisioning payload;
 * they must never reach an event, a read model, a log or a response in clear. Carried only in process
 * (the embedded runtime); a remote deployment of either context must carry this contract over mutual TLS.
 */
export interface CardForProvisioning {
  cardId: string;
  pan: string;
  expMonth: number;
  expYear: number;
}

/** The cards context's vault-facing read for push provisioning (the tokenization context's only door to a PAN). */
export interface CardProvisioningApi {
  /** The card's PAN and expiry; `404 not_found` for another tenant's card, `409 card_not_active` unless active. */
  cardForProvisioning(caller: Caller, cardId: string): Promise<CardForProvisioning>;
}

export const CARD_PROVISIONING_API = Symbol('CARD_PROVISIONING_API');

export const cardProvisioningContract = defineContext<CardProvisioningApi>({
  name: 'cards.provisioning',
  token: CARD_PROVISIONING_API,
  methods: {
    cardForProvisioning: ['caller', 'cardId'],
  },
});
