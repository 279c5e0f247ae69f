// ---------------------------------------------------------------------------------------------------
// EMV 3-D Secure 2.2.0 messages as the EMVCo core specification (v2.2.0, chapter 5 "Message format" and
// annex A "Data elements") shapes them: JSON objects whose data elements are strings. Only the elements the
// platform's ACS and the sandbox 3DS server read or write are typed; the others pass through untouched.
// The ACS validates every message it receives against the JSON Schemas of `emv-3ds.schemas.ts`.
// ---------------------------------------------------------------------------------------------------

/** The protocol version the ACS speaks (an AReq of another version gets Erro 102). */
export const EMV_3DS_VERSION = '2.2.0';

/** Message category (A.4): 01 payment authentication, 02 non-payment (card verification). */
export type MessageCategory = '01' | '02';

/** Device channel: 01 app-based, 02 browser-based, 03 3DS Requestor Initiated (3RI). */
export type DeviceChannel = '01' | '02' | '03';

/**
 * Transaction status (`transStatus`): Y authenticated, N not authenticated, U could not be performed, A
 * attempted, C challenge required, D decoupled authentication confirmed (2.2), R rejected, I information only.
 */
export type TransStatus = 'Y' | 'N' | 'U' | 'A' | 'C' | 'D' | 'R' | 'I';

/**
 * The transaction status reasons of the core specification (`transStatusReason`, A.4) the platform's ACS
 * sends. Which rule leads to which is documented in libs/three-ds/domain/README.md.
 */
export const TRANS_STATUS_REASONS = {
  cardAuthenticationFailed: '01',
  expiredCard: '05',
  noCardRecord: '08',
  transactionNotPermitted: '12',
  timedOutAtAcs: '14',
  threeRiNotSupported: '21',
  decoupledRequiredNotRequested: '23',
} as const;
export type TransStatusReason = (typeof TRANS_STATUS_REASONS)[keyof typeof TRANS_STATUS_REASONS];

/** Authentication Request: the 3DS server, through the DS, asks the ACS to authenticate the cardholder. */
export interface AReq {
  messageType: 'AReq';
  messageVersion: string;
  messageCategory: MessageCategory;
  deviceChannel: DeviceChannel;
  threeDSServerTransID: string;
  dsTransID: string;
  /** Where the ACS sends the RReq (the DS fills it in). */
  dsURL: string;
  dsReferenceNumber: string;
  threeDSServerRefNumber: string;
  threeDSServerURL: string;
  threeDSRequestorID: string;
  threeDSRequestorName: string;
  threeDSRequestorURL: string;
  /** The cardholder's PAN: read once to find the card, never kept, logged or echoed. */
  acctNumber: string;
  /** YYMM (required by this ACS: it finds the card by PAN and expiry). */
  cardExpiryDate: string;
  /** Payment (01) only: minor units without separators (up to 48 digits), ISO 4217 numeric, exponent. */
  purchaseAmount?: string;
  purchaseCurrency?: string;
  purchaseExponent?: string;
  purchaseDate?: string;
  acquirerBIN?: string;
  acquirerMerchantID?: string;
  merchantName?: string;
  mcc?: string;
  merchantCountryCode?: string;
  /** Browser channel: where the final CRes is posted (by the cardholder's browser). */
  notificationURL?: string;
  /** App channel: the URL the OOB app returns the cardholder to (2.2). */
  threeDSRequestorAppURL?: string;
  /** Y: the requestor supports decoupled authentication; N or absent: it does not. */
  threeDSRequestorDecReqInd?: 'Y' | 'N';
  /** The longest the requestor waits for a decoupled authentication, minutes (5 digits). */
  threeDSRequestorDecMaxTime?: string;
  /** 01 no preference, 02 no challenge requested, 03 challenge requested (requestor preference), 04 mandate. */
  threeDSRequestorChallengeInd?: string;
  [element: string]: unknown;
}

/** Authentication Response: the ACS's answer to an AReq. */
export interface ARes {
  messageType: 'ARes';
  messageVersion: string;
  threeDSServerTransID: string;
  dsTransID: string;
  acsTransID: string;
  acsReferenceNumber: string;
  acsOperatorID: string;
  dsReferenceNumber: string;
  transStatus: TransStatus;
  transStatusReason?: TransStatusReason;
  /** Y only: the authentication value (CAVV / AAV, 28 base64 characters) and the ECI. */
  authenticationValue?: string;
  eci?: string;
  /** C or D: 01 static, 02 dynamic, 03 OOB, 04 decoupled. */
  authenticationType?: string;
  /** D: Y, the ACS confirms it will authenticate decoupled. */
  acsDecConInd?: 'Y' | 'N';
  /** Text the 3DS requestor shows the cardholder. */
  cardholderInfo?: string;
  /** C only: Y a challenge is mandated. */
  acsChallengeMandated?: 'Y' | 'N';
  /** C, browser channel only: where the 3DS requestor posts the CReq. */
  acsURL?: string;
  messageExtension?: unknown[];
}

/**
 * Challenge Request (browser channel): the cardholder's browser posts it to the ARes's `acsURL` as the form
 * field `creq`, base64url-encoded JSON.
 */
export interface CReq {
  messageType: 'CReq';
  messageVersion: string;
  threeDSServerTransID: string;
  acsTransID: string;
  /** 01 250x400 ... 05 full screen. */
  challengeWindowSize: string;
}

/**
 * Challenge Response (browser channel): the final one is posted by the cardholder's browser to the AReq's
 * `notificationURL` as the form field `cres`, base64url-encoded JSON.
 */
export interface CRes {
  messageType: 'CRes';
  messageVersion: string;
  threeDSServerTransID: string;
  acsTransID: string;
  transStatus: 'Y' | 'N';
  challengeCompletionInd: 'Y' | 'N';
}

/** Base64url of a message's JSON, as CReq and CRes travel in browser form posts. */
export const toBase64UrlJson = (message: object): string =>
  Buffer.from(JSON.stringify(message), 'utf8').toString('base64url');

/** The JSON a base64url form field carries, or null when it is not base64url JSON. */
export function fromBase64UrlJson(encoded: unknown): unknown {
  if (typeof encoded !== 'string' || !/^[A-Za-z0-9_-]{1,8192}={0,2}$/.test(encoded)) return null;
  try {
    return JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/** Results Request: the final outcome of a challenge, from the ACS to the DS (and the 3DS server). */
export interface RReq {
  messageType: 'RReq';
  messageVersion: string;
  messageCategory: MessageCategory;
  threeDSServerTransID: string;
  dsTransID: string;
  acsTransID: string;
  transStatus: 'Y' | 'N' | 'U' | 'A' | 'R';
  transStatusReason?: TransStatusReason;
  authenticationValue?: string;
  eci?: string;
  authenticationType: string;
  /** Number of challenge interactions (2 digits). */
  interactionCounter: string;
  /** Why a challenge ended without the cardholder's answer (A.4): 05 transaction timed out (decoupled). */
  challengeCancel?: string;
}

/** Results Response: the DS acknowledges an RReq (`resultsStatus` 01: received, will be processed). */
export interface RRes {
  messageType: 'RRes';
  messageVersion: string;
  threeDSServerTransID: string;
  dsTransID: string;
  acsTransID: string;
  resultsStatus: string;
}

/**
 * The error codes of the core specification (A.5.5) the platform sends: 101 message received invalid, 102
 * version not supported, 201 required element missing, 203 element format invalid, 301 transaction id not
 * recognised, 303 access denied (invalid endpoint), 404 transient system failure.
 */
export type ErroCode = '101' | '102' | '201' | '203' | '301' | '303' | '404';

/** The specification's error message, answered (HTTP 200) instead of the expected response. */
export interface Erro {
  messageType: 'Erro';
  messageVersion: string;
  /** A: the ACS found the error; D: the DS; S: the 3DS server. */
  errorComponent: 'A' | 'D' | 'S';
  errorCode: ErroCode;
  errorDescription: string;
  /** The data elements in error, comma separated. */
  errorDetail: string;
  errorMessageType?: string;
  threeDSServerTransID?: string;
  dsTransID?: string;
  acsTransID?: string;
}

/** An Erro of this protocol version. */
export const erro = (fields: Omit<Erro, 'messageType' | 'messageVersion'>): Erro => ({
  messageType: 'Erro',
  messageVersion: EMV_3DS_VERSION,
  ...fields,
});

/** API error codes of a request refused before it reached the component: the message itself was invalid. */
const INVALID_MESSAGE = new Set([
  'validation_error',
  'unsupported_media_type',
  'payload_too_large',
  'headers_too_large',
]);

/**
 * The Erro a 3DS component answers (HTTP 200, as the specification's messages travel) for a request the
 * platform's HTTP pipeline refused or could not serve: 101 for a body that is not a JSON object (or too
 * large), 303 for an endpoint that does not exist, 404 (transient system failure) for anything else.
 */
export function erroForRefusedRequest(
  code: string,
  message: string,
  component: Erro['errorComponent'],
  errorMessageType: string,
): Erro {
  if (INVALID_MESSAGE.has(code)) {
    return erro({
      errorComponent: component,
      errorCode: '101',
      errorDescription: 'Message received invalid',
      errorDetail: message.slice(0, 2048),
      errorMessageType,
    });
  }
  if (code === 'not_found' || code === 'method_not_allowed') {
    return erro({
      errorComponent: component,
      errorCode: '303',
      errorDescription: 'Access denied, invalid endpoint',
      errorDetail: 'endpoint',
      errorMessageType,
    });
  }
  return erro({
    errorComponent: component,
    errorCode: '404',
    errorDescription: 'Transient system failure',
    errorDetail: component === 'A' ? 'ACS' : 'DS',
    errorMessageType,
  });
}
