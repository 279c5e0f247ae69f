import type { AuthorizationView } from '@cip/authorizations/contract';
import { Caller, defineContext } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// The card network and acquirers of the sandbox (`/v1/simulate/authorization...`). Each method plays an
// acquirer's terminal: the simulator builds the ISO 8583 message and sends it to the issuer over the card
// network link (docs/iso8583.md), exactly as production traffic arrives; nothing reaches the issuer's
// decision engine any other way.
// ---------------------------------------------------------------------------------------------------

/** The card acceptor, as the acquirer names it (DE-018, DE-041, DE-042, DE-043). */
export interface SimulatedMerchant {
  /** Up to 25 characters (DE-043 positions 1-25; longer names are cut, as terminals do). */
  name: string;
  /** Up to 13 characters (DE-043 positions 26-38). */
  city: string;
  /** ISO 3166-1 alpha-2 (DE-043 positions 39-40). */
  country: string;
  /** ISO 18245 merchant category code, four digits (DE-018). */
  mcc: string;
  /** Card acceptor id (DE-042), up to 15 characters; a fixed sandbox merchant id when absent. */
  mid?: string;
  /** Terminal id (DE-041), up to 8 characters; a fixed sandbox terminal when absent. */
  terminalId?: string;
}

/** How the card was read (DE-022): e-commerce with CVV2 by default. */
export const SIMULATED_ENTRY_MODES = ['ecommerce', 'chip', 'contactless', 'manual'] as const;
export type SimulatedEntryMode = (typeof SIMULATED_ENTRY_MODES)[number];

/** `POST /v1/simulate/authorization`: a card payment at a merchant. */
export interface SimulateAuthorizationInput {
  cardId: string;
  /** In `currency` units (a decimal number; at most the currency's ISO 4217 decimals). */
  amount: number;
  /** ISO 4217 alpha code of the merchant's currency; USD when absent. */
  currency?: string;
  merchant: SimulatedMerchant;
  /** The CVV2 the cardholder types; the card's own when absent (use a wrong one to test declines). */
  cvv2?: string;
  /** A PIN entered at the terminal (four digits): sent as an encrypted ISO 9564 format 0 PIN block. */
  pin?: string;
  entryMode?: SimulatedEntryMode;
  /**
   * The 3-D Secure authentication before the payment, as the merchant's 3DS server got it: sent in the 0100's
   * DE-048 (subelement 43 the value, 42 the ECI). `dsTransID` is accepted and not sent (the platform's
   * dialect has no subelement for it yet).
   */
  threeDs?: SimulatedThreeDsAuthentication;
  /**
   * Without `threeDs` (which wins when both are given): a challenge of `/v1/simulate/3ds` (`tds-<uuid>`); the sandbox 3DS server sends
   * the value and ECI of the RReq it received for it (409 while it has none: not accepted yet, or refused).
   */
  cardAuthenticationId?: string;
}

/** The authentication value (CAVV / AAV, 28 base64 characters) and ECI of a 3-D Secure `Y`. */
export interface SimulatedThreeDsAuthentication {
  authenticationValue: string;
  /** `05` when absent. */
  eci?: string;
  dsTransID?: string;
}

/** `POST /v1/simulate/authorization/refund`: a merchant gives money back (processing code 20). */
export interface SimulateRefundInput {
  cardId: string;
  amount: number;
  currency?: string;
  merchant: SimulatedMerchant;
  /** The card's approved payment the refund gives money back for; absent: a refund without one. */
  authorizationId?: string;
}

/** `POST /v1/simulate/authorization/reversal`: the acquirer cancels all (or part) of an authorization. */
export interface SimulateReversalInput {
  authorizationId: string;
  /** How much to release, in the authorization's merchant currency; the whole rest when absent. */
  amount?: number;
}

/**
 * `POST /v1/simulate/authorization/clearing`: a presentment in today's clearing batch. With an
 * `authorizationId`: against that authorization (`amount` defaults to the authorized amount; less is a
 * partial presentment, several calls are multiple partial presentments, more is an over-presentment).
 * Without: a force post (no authorization was asked), which needs `cardId`, `amount` and `merchant`.
 */
export interface SimulateClearingInput {
  authorizationId?: string;
  cardId?: string;
  amount?: number;
  currency?: string;
  merchant?: SimulatedMerchant;
}

/** What travelled on the link for one simulated transaction (no card data). */
export interface NetworkExchange {
  /** The acquirer (DE-032) and retrieval reference (DE-037): the transaction's network reference. */
  acquirerId: string;
  rrn: string;
  stan: string;
  /** The request sent (`0100`, `0400`) and the answer (`0110`, `0410`), or the advice when stood in. */
  requestMti: string;
  responseMti: string | null;
  /** DE-039 as the acquirer got it (`00` approved). */
  responseCode: string;
  approvalCode: string | null;
  /**
   * `null` when the issuer answered in time; `stand_in` when the network decided on its behalf (timeout or no
   * link) and owes it a 0120 advice; `reversal_advice` when the 0400 got no answer and a 0420 follows.
   */
  advice: 'stand_in' | 'reversal_advice' | null;
  /** Whether the issuer has acknowledged the advice yet (store and forward retries until it does). */
  adviceAcknowledged: boolean | null;
}

/** The answer of the authorization, refund and reversal simulations. */
export interface SimulatedAuthorizationResult {
  /** The issuer's record of it, found by network reference; null while the issuer has not recorded it. */
  authorization: AuthorizationView | null;
  network: NetworkExchange;
}

/** One presentment record of a clearing file (docs in libs/simulator/README.md, "Clearing file"). */
export interface ClearingPresentment {
  sequence: number;
  kind: 'presentment' | 'force_post';
  acquirerId: string;
  rrn: string;
  /** The authorization's approval code; empty for a force post. */
  approvalCode: string;
  cardId: string;
  panLast4: string;
  processingCode: string;
  /** Minor units of `currency`. */
  amountMinor: number;
  currency: string;
  mcc: string;
  merchantName: string;
  merchantCity: string;
  merchantCountry: string;
  merchantId: string;
  terminalId: string;
  presentedAt: string;
}

/** A clearing batch file the network produced: its identity, its records and its text as stored. */
export interface ClearingFile {
  /** `CLR-<environment>-<YYYYMMDD>-<nnnnnn>`: the importer keys idempotency on it. */
  fileId: string;
  businessDate: string;
  createdAt: string;
  presentments: ClearingPresentment[];
  /** The file as stored (`H`, `P` and `T` lines; see the README). */
  content: string;
}

export interface SimulatedClearingResult {
  file: ClearingFile;
  /**
   * Whether the issuer side took the file (the `ClearingFileSink`); false while no importer is wired, in
   * which case the file is stored and nothing is cleared yet.
   */
  delivered: boolean;
}

export interface SimulatorApi {
  /** Sends an 0100 for the card; `404 not_found` for a card that is not the caller's. Sandbox only. */
  simulateAuthorization(
    caller: Caller,
    input: SimulateAuthorizationInput,
  ): Promise<SimulatedAuthorizationResult>;
  /** Sends an 0100 with processing code 20 (refund). */
  simulateRefund(caller: Caller, input: SimulateRefundInput): Promise<SimulatedAuthorizationResult>;
  /** Sends an 0400 (with DE-095 when partial); an 0420 advice follows if the issuer does not answer. */
  simulateReversal(caller: Caller, input: SimulateReversalInput): Promise<SimulatedAuthorizationResult>;
  /** Adds a presentment to a clearing file and delivers it (the sandbox cuts a file per call). */
  simulateClearing(caller: Caller, input: SimulateClearingInput): Promise<SimulatedClearingResult>;
}

export const SIMULATOR_API = Symbol('SIMULATOR_API');

export const simulatorContract = defineContext<SimulatorApi>({
  name: 'simulator',
  token: SIMULATOR_API,
  methods: {
    simulateAuthorization: ['caller', 'input'],
    simulateRefund: ['caller', 'input'],
    simulateReversal: ['caller', 'input'],
    simulateClearing: ['caller', 'input'],
  },
});
