import { Caller, defineContext, type FindPage, type FindResult } from '@cip/shared/contracts';
import type { ActivationMethod, DigitalWalletName } from './token.types';
import type { TokenView } from './token-view';

/** Apple Pay in-app provisioning: what the wallet's `PKAddPaymentPassViewController` hands the app. */
export interface ApplePayTokenizationInput {
  /** The certificate chain, leaf first, each base64 DER. */
  certificates: string[];
  /** base64 */
  nonce: string;
  /** base64 */
  nonceSignature: string;
}

/** What the app hands back to Apple Pay (`PKAddPaymentPassRequest`), and the token it stands for. */
export interface ApplePayTokenization {
  token: TokenView;
  activationData: string;
  encryptedPassData: string;
  ephemeralPublicKey: string;
}

/** Google Pay push provisioning: the wallet's ids, from the TapAndPay SDK (`getActiveWalletId`, ...). */
export interface GooglePayTokenizationInput {
  deviceId: string;
  walletAccountId: string;
}

export interface GooglePayTokenization {
  token: TokenView;
  /** The Google Opaque Payment Card: OpenPGP signed and encrypted, base64. */
  opaquePaymentCard: string;
}

export interface ActivateTokenizationInput {
  digitalWalletName: DigitalWalletName;
  tokenReferenceId: string;
}

/**
 * What a distributor does with the digital-wallet tokens of its cards (`/v1/cards/{id}/...-tokenization`,
 * `/v1/cards/{id}/tokens`). Only active cards are tokenized (`409 card_not_active`); another tenant's card
 * is not found.
 */
export interface TokenizationApi {
  tokenizeForApplePay(
    caller: Caller,
    cardId: string,
    input: ApplePayTokenizationInput,
  ): Promise<ApplePayTokenization>;
  tokenizeForGooglePay(
    caller: Caller,
    cardId: string,
    input: GooglePayTokenizationInput,
  ): Promise<GooglePayTokenization>;
  /** After the user authenticated with the provider: the token can pay (`cardTokenization.activated`). */
  activateTokenization(caller: Caller, cardId: string, input: ActivateTokenizationInput): Promise<TokenView>;
  listCardTokens(caller: Caller, cardId: string, page: FindPage): Promise<FindResult<TokenView>>;
}

export const TOKENIZATION_API = Symbol('TOKENIZATION_API');

export const tokenizationContract = defineContext<TokenizationApi>({
  name: 'tokenization',
  token: TOKENIZATION_API,
  methods: {
    tokenizeForApplePay: ['caller', 'cardId', 'input'],
    tokenizeForGooglePay: ['caller', 'cardId', 'input'],
    activateTokenization: ['caller', 'cardId', 'input'],
    listCardTokens: ['caller', 'cardId', 'page'],
  },
});

/** The sandbox token service: a user adds the card to a wallet by typing its details. */
export interface SimulateTokenizationInput {
  cardId: string;
  digitalWalletName: DigitalWalletName;
  /** Omitted: the token service needs no activation code (it is activated at once). */
  activationMethod?: ActivationMethod;
}

/** Sandbox simulations of the token service (`POST /v1/simulate/tokenization`). */
export interface TokenizationSimulationApi {
  simulateTokenization(caller: Caller, input: SimulateTokenizationInput): Promise<TokenView>;
}

export const TOKENIZATION_SIMULATION_API = Symbol('TOKENIZATION_SIMULATION_API');

export const tokenizationSimulationContract = defineContext<TokenizationSimulationApi>({
  name: 'tokenization.simulation',
  token: TOKENIZATION_SIMULATION_API,
  methods: {
    simulateTokenization: ['caller', 'input'],
  },
});
