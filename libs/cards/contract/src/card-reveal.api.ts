import { Caller, defineContext } from '@cip/shared/contracts';

/** Where the platform serves the single-use reveal pages: `{publicBaseUrl}/hosted/cards/reveal/{token}`. */
export const CARD_REVEAL_PATH = '/hosted/cards/reveal';

/** How long a reveal link can be opened (API-DECISIONS, "Cards": 60 s). */
export const REVEAL_LINK_TTL_MS = 60_000;

/** `POST /v1/cards/{id}/reveal`: the single-use link and when it stops working. */
export interface CardRevealLink {
  url: string;
  expiresAt: string;
}

/** What the hosted reveal page shows: the only answer of any API that holds a PAN or a CVV2. */
export interface RevealedCardDetails {
  pan: string;
  cvv2: string;
  expMonth: number;
  expYear: number;
}

/**
 * The card details reveal: a distributor asks for a single-use link (never the details themselves), and the
 * page behind the link shows them once to whoever holds it (the cardholder, in the distributor's app).
 */
export interface CardRevealApi {
  /**
   * A new link to the card's reveal page, valid `REVEAL_LINK_TTL_MS`; `404 not_found` for a card that is
   * not the caller's, `409 invalid_state_transition` for a revoked card. Recorded for audit.
   */
  createRevealLink(caller: Caller, cardId: string): Promise<CardRevealLink>;
  /**
   * Whether a link's token would show the card's details now (unused, unexpired, the card not revoked),
   * without using it: the page's GET (and a HEAD, a link preview, a prefetch) asks this, only its explicit
   * POST uses the link (`revealCardDetails`).
   */
  revealLinkUsable(token: string): Promise<boolean>;
  /**
   * Uses a link's token: the card's details if it is unused, unexpired and the card is not revoked, null
   * otherwise. It never works again either way. The reveal is recorded (under the page's request id)
   * before the details are given.
   */
  revealCardDetails(token: string, requestId: string): Promise<RevealedCardDetails | null>;
}

export const CARD_REVEAL_API = Symbol('CARD_REVEAL_API');

export const cardRevealContract = defineContext<CardRevealApi>({
  name: 'cards.reveal',
  token: CARD_REVEAL_API,
  methods: {
    createRevealLink: ['caller', 'cardId'],
    revealLinkUsable: ['token'],
    revealCardDetails: ['token', 'requestId'],
  },
});
