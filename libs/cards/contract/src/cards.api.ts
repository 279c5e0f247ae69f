import { Caller, defineContext, type FindPage, type FindResult } from '@cip/shared/contracts';
import type {
  CardDeliveryType,
  CardReissueReason,
  CardTier,
  ShippingAddress,
  ShippingMethod,
} from './card-shipping';
import type { CardStatus, CardType } from './card.types';
import type { CardView } from './card-view';

export interface CreateCardInput {
  userId: string;
  type: CardType;
  /** Physical cards only: `standard` when omitted. */
  tier?: CardTier;
  /** Physical cards only: `ship_to_user` when omitted. */
  deliveryType?: CardDeliveryType;
  /**
   * Physical cards only: where to ship. A B2B program may name any address; any other program may only
   * repeat the user's verified address (`409 shipping_address_required` otherwise). Omitted: the user's.
   */
  address?: ShippingAddress;
  /** The card's spending controls from the start, validated as the PUT validates them. */
  spendingControls?: SpendingControlsUpdate;
}

export interface ReissueCardInput {
  reason: CardReissueReason;
}

/** What the sandbox's fulfilment provider reports when it ships a card (`POST /v1/simulate/cards/{id}/ship`). */
export interface SimulateShipmentInput {
  /** Omitted: the sandbox makes one up (the same one for the same card). */
  trackingNumber?: string;
  /** Omitted: the method the card was requested with. */
  shippingMethod?: ShippingMethod;
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
  /** The last four digits of the number (operators' search; not a /v1 filter). */
  last4?: string;
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
  /**
   * Replaces the card with a new one (a new number from the vault, the same wallet, type, tier and
   * spending controls; a physical one ships to the user's current address), `replacesCardId` set. `lost`
   * and `stolen` revoke the old card at once; `damaged` and `expired` revoke it once the new one is
   * active. A card is replaced once: asking again answers the same new card.
   */
  reissueCard(caller: Caller, cardId: string, input: ReissueCardInput): Promise<CardView>;
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
    reissueCard: ['caller', 'cardId', 'input'],
  },
});

/** Sandbox only: what the simulated fulfilment provider reports (`/v1/simulate/cards`). */
export interface CardSimulationApi {
  /**
   * The card was dispatched: `card.shipped`, then `card.trackingNumberUpdated`. On a card already shipped,
   * a new tracking number or method is `card.trackingNumberUpdated` alone; the same ones change nothing.
   */
  simulateShipment(caller: Caller, cardId: string, input: SimulateShipmentInput): Promise<CardView>;
}

export const CARD_SIMULATION_API = Symbol('CARD_SIMULATION_API');

export const cardSimulationContract = defineContext<CardSimulationApi>({
  name: 'cards.simulation',
  token: CARD_SIMULATION_API,
  methods: { simulateShipment: ['caller', 'cardId', 'input'] },
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
