import { defineContext, type Environment } from '@cip/shared/contracts';
import type { CardVerificationOutcome } from './card-operations.api';
import type { CardBlock, CardStatus } from './card.types';
import type { SpendingControls } from './spending-controls';

// ---------------------------------------------------------------------------------------------------
// The card network's audience (issue 12): the authorizations context, answering the network's ISO 8583
// requests, finds the card a PAN names and checks its CVV2 or PIN against the vault. Acts on any
// distributor's card of an environment: not reachable with a distributor's API key. The PAN, CVV2 and PIN
// cross this contract in process only (a remote deployment needs mutual TLS, as `cards.provisioning`) and
// are never logged, kept or returned.
// ---------------------------------------------------------------------------------------------------

/** What the authorization decision needs of a card (no PAN, no secret). */
export interface CardForAuthorization {
  cardId: string;
  distributorId: string;
  userId: string;
  walletId: string;
  status: CardStatus;
  blocks: CardBlock[];
  expMonth: number;
  expYear: number;
  /** The card's controls, or the program's defaults when its distributor never set them. */
  spendingControls: SpendingControls;
}

/** A card as the network names it: its PAN and expiry (`YYMM`, ISO 8583 DE-014). */
export interface NetworkCardReference {
  pan: string;
  expiry: string;
}

/** One CVV2 or PIN entered on an authorization (never kept: only the outcome is recorded). */
export interface NetworkVerification {
  /** The authorization the check belongs to: checking it again (a retry) counts once. */
  authorizationId: string;
  /** The CVV2 (3 digits) or the PIN (4 digits) the cardholder entered. */
  value: string;
}

export interface CardNetworkApi {
  /**
   * The card with this PAN and expiry, through the vault's PAN index (a keyed hash; nothing is scanned or
   * decrypted); null when no card has that PAN, or its expiry differs.
   */
  cardForAuthorization(
    environment: Environment,
    card: NetworkCardReference,
  ): Promise<CardForAuthorization | null>;
  /**
   * The card a clearing file names by its id (a clearing file carries no PAN); null when no card has that
   * id in the environment. Any distributor's card: the network's audience.
   */
  cardForClearing(environment: Environment, cardId: string): Promise<CardForAuthorization | null>;
  /**
   * Checks the CVV2 against the vault and records the outcome (`CardVerificationApi.recordVerification`:
   * three consecutive failures, PIN and CVV2 together, block the card, `card.blocked`).
   */
  verifyCvv2(
    environment: Environment,
    cardId: string,
    entered: NetworkVerification,
  ): Promise<CardVerificationOutcome & { ok: boolean }>;
  /** The same for the PIN (false when the card has no PIN set). */
  verifyPin(
    environment: Environment,
    cardId: string,
    entered: NetworkVerification,
  ): Promise<CardVerificationOutcome & { ok: boolean }>;
}

export const CARD_NETWORK_API = Symbol('CARD_NETWORK_API');

export const cardNetworkContract = defineContext<CardNetworkApi>({
  name: 'cards.network',
  token: CARD_NETWORK_API,
  methods: {
    cardForAuthorization: ['environment', 'card'],
    cardForClearing: ['environment', 'cardId'],
    verifyCvv2: ['environment', 'cardId', 'entered'],
    verifyPin: ['environment', 'cardId', 'entered'],
  },
});
