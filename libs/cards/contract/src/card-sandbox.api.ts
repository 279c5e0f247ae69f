import { Caller, defineContext } from '@cip/shared/contracts';

/** What a cardholder reads off the card: what the sandbox's simulated acquirer keys in. */
export interface CardholderDetails {
  pan: string;
  cvv2: string;
  expMonth: number;
  expYear: number;
}

/**
 * The sandbox card network's access to a card, to play the cardholder at a simulated terminal. Modelled on
 * the hosted reveal: read from the vault, never logged, never stored by the caller. Sandbox environment only
 * (`403 sandbox_only` otherwise); `404 not_found` for a card that is not the caller's.
 */
export interface CardSandboxApi {
  cardholderDetails(caller: Caller, cardId: string): Promise<CardholderDetails>;
}

export const CARD_SANDBOX_API = Symbol('CARD_SANDBOX_API');

export const cardSandboxContract = defineContext<CardSandboxApi>({
  name: 'cards.sandbox',
  token: CARD_SANDBOX_API,
  methods: { cardholderDetails: ['caller', 'cardId'] },
});
