import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import {
  EMV_3DS_VERSION,
  erro,
  type AReq,
  type CReq,
  type Erro,
  type ErroCode,
  type RReq,
  type RRes,
} from './emv-3ds';

// ---------------------------------------------------------------------------------------------------
// JSON Schemas of the EMV 3DS 2.2.0 messages the platform receives, written from the core specification's
// annex A (data element formats and lengths, and the conditions under which each is required: message
// category 01 payment / 02 non-payment, device channel 01 app / 02 browser / 03 3RI). Elements the ACS does
// not read are allowed through (`additionalProperties`), as the specification requires of a receiver of a
// message with elements it does not use. ajv (already the platform's JSON Schema validator) checks them.
// ---------------------------------------------------------------------------------------------------

/** A transaction id: a canonical UUID (RFC 4122), 36 characters. */
const transId = {
  type: 'string',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
};
const url = { type: 'string', minLength: 1, maxLength: 2048, pattern: '^https?://' };
const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max });
const digits = (min: number, max = min) => ({ type: 'string', pattern: `^[0-9]{${min},${max}}$` });
const oneOf = (...values: string[]) => ({ type: 'string', enum: values });

const AREQ_SCHEMA = {
  $id: 'AReq',
  type: 'object',
  required: [
    'messageType',
    'messageVersion',
    'messageCategory',
    'deviceChannel',
    'threeDSServerTransID',
    'dsTransID',
    'dsURL',
    'dsReferenceNumber',
    'threeDSServerRefNumber',
    'threeDSServerURL',
    'threeDSRequestorID',
    'threeDSRequestorName',
    'threeDSRequestorURL',
    'acctNumber',
    // Optional in annex A where a market restricts it; this ACS finds the card by PAN and expiry.
    'cardExpiryDate',
  ],
  properties: {
    messageType: oneOf('AReq'),
    messageVersion: text(8),
    messageCategory: oneOf('01', '02'),
    deviceChannel: oneOf('01', '02', '03'),
    threeDSServerTransID: transId,
    dsTransID: transId,
    dsURL: url,
    dsReferenceNumber: text(32),
    threeDSServerRefNumber: text(32),
    threeDSServerURL: url,
    threeDSRequestorID: text(35),
    threeDSRequestorName: text(40),
    threeDSRequestorURL: url,
    acctNumber: digits(13, 19),
    cardExpiryDate: { type: 'string', pattern: '^[0-9]{2}(0[1-9]|1[0-2])$' },
    purchaseAmount: digits(1, 48),
    purchaseCurrency: digits(3),
    purchaseExponent: digits(1),
    purchaseDate: digits(14),
    acquirerBIN: text(11),
    acquirerMerchantID: text(35),
    merchantName: text(40),
    mcc: digits(4),
    merchantCountryCode: digits(3),
    threeDSRequestorAppURL: url,
    threeDSRequestorDecReqInd: oneOf('Y', 'N'),
    threeDSRequestorDecMaxTime: digits(5),
    threeDSRequestorChallengeInd: oneOf('01', '02', '03', '04', '05', '06', '07', '08', '09'),
    threeDSCompInd: oneOf('Y', 'N', 'U'),
    notificationURL: url,
    browserAcceptHeader: text(2048),
    browserLanguage: text(8),
    browserUserAgent: text(2048),
    sdkAppID: transId,
    sdkTransID: transId,
    sdkReferenceNumber: text(32),
    sdkMaxTimeout: digits(2),
    sdkEncData: text(64000),
    sdkEphemPubKey: { type: 'object' },
    deviceRenderOptions: { type: 'object' },
  },
  allOf: [
    {
      // Payment authentication: the purchase and the merchant (A.4 "Required, 01-PA").
      if: { properties: { messageCategory: { const: '01' } }, required: ['messageCategory'] },
      then: {
        required: [
          'purchaseAmount',
          'purchaseCurrency',
          'purchaseExponent',
          'purchaseDate',
          'acquirerBIN',
          'acquirerMerchantID',
          'merchantName',
          'mcc',
          'merchantCountryCode',
        ],
      },
    },
    {
      if: { properties: { deviceChannel: { const: '01' } }, required: ['deviceChannel'] },
      then: {
        required: [
          'sdkAppID',
          'sdkTransID',
          'sdkReferenceNumber',
          'sdkMaxTimeout',
          'sdkEncData',
          'sdkEphemPubKey',
          'deviceRenderOptions',
        ],
      },
    },
    {
      if: { properties: { deviceChannel: { const: '02' } }, required: ['deviceChannel'] },
      then: {
        required: [
          'threeDSCompInd',
          'notificationURL',
          'browserAcceptHeader',
          'browserLanguage',
          'browserUserAgent',
        ],
      },
    },
  ],
};

const RREQ_SCHEMA = {
  $id: 'RReq',
  type: 'object',
  required: [
    'messageType',
    'messageVersion',
    'messageCategory',
    'threeDSServerTransID',
    'dsTransID',
    'acsTransID',
    'transStatus',
    'authenticationType',
    'interactionCounter',
  ],
  properties: {
    messageType: oneOf('RReq'),
    messageVersion: text(8),
    messageCategory: oneOf('01', '02'),
    threeDSServerTransID: transId,
    dsTransID: transId,
    acsTransID: transId,
    transStatus: oneOf('Y', 'N', 'U', 'A', 'R'),
    transStatusReason: digits(2),
    authenticationValue: { type: 'string', pattern: '^[A-Za-z0-9+/]{27}=$' },
    eci: digits(2),
    authenticationType: oneOf('01', '02', '03', '04'),
    interactionCounter: digits(2),
    challengeCancel: digits(2),
  },
  allOf: [
    {
      if: { properties: { transStatus: { const: 'Y' } }, required: ['transStatus'] },
      then: { required: ['authenticationValue', 'eci'] },
    },
    {
      if: { properties: { transStatus: { enum: ['N', 'U', 'R'] } }, required: ['transStatus'] },
      then: { required: ['transStatusReason'] },
    },
  ],
};

const CREQ_SCHEMA = {
  $id: 'CReq',
  type: 'object',
  required: ['messageType', 'messageVersion', 'threeDSServerTransID', 'acsTransID', 'challengeWindowSize'],
  properties: {
    messageType: oneOf('CReq'),
    messageVersion: text(8),
    threeDSServerTransID: transId,
    acsTransID: transId,
    challengeWindowSize: oneOf('01', '02', '03', '04', '05'),
  },
};

const RRES_SCHEMA = {
  $id: 'RRes',
  type: 'object',
  required: [
    'messageType',
    'messageVersion',
    'threeDSServerTransID',
    'dsTransID',
    'acsTransID',
    'resultsStatus',
  ],
  properties: {
    messageType: oneOf('RRes'),
    messageVersion: text(8),
    threeDSServerTransID: transId,
    dsTransID: transId,
    acsTransID: transId,
    resultsStatus: oneOf('01', '02', '03'),
  },
};

// strictRequired off: the conditional (if/then) branches name elements the top-level `properties` define.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
const SCHEMAS = { AReq: AREQ_SCHEMA, RReq: RREQ_SCHEMA, RRes: RRES_SCHEMA, CReq: CREQ_SCHEMA };
// Compiled on first use, not when the module loads: every service loads this contract, and compiling the
// four schemas took ~0.3 s of each process's start; only the ACS and the sandbox 3DS server read messages.
const validators: Partial<Record<keyof typeof SCHEMAS, ValidateFunction>> = {};
const validatorOf = (type: keyof typeof SCHEMAS): ValidateFunction =>
  (validators[type] ??= ajv.compile(SCHEMAS[type]));

interface MessageTypes {
  AReq: AReq;
  CReq: CReq;
  RReq: RReq;
  RRes: RRes;
}

/** The data element an ajv error is about (a missing one is named by `params.missingProperty`). */
function elementOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String(error.params.missingProperty);
  return error.instancePath.split('/')[1] || 'message';
}

const TRANSACTION_IDS = ['threeDSServerTransID', 'dsTransID', 'acsTransID'] as const;

/**
 * Reads a received message: the message, or the specification's Erro to answer instead (the component that
 * found the error is `component`). 101 when it is not a JSON object of the expected type, 102 for another
 * protocol version, 201 naming every missing required element, 203 naming every element of a wrong format.
 * The Erro echoes the transaction ids only when they are well formed; never any other element (the
 * account number is never echoed).
 */
export function readEmvMessage<Type extends keyof MessageTypes>(
  type: Type,
  received: unknown,
  component: Erro['errorComponent'],
): { message: MessageTypes[Type] } | { error: Erro } {
  const refuse = (errorCode: ErroCode, errorDescription: string, errorDetail: string): { error: Erro } => {
    const ids: Partial<Record<(typeof TRANSACTION_IDS)[number], string>> = {};
    if (received && typeof received === 'object') {
      for (const id of TRANSACTION_IDS) {
        const value = (received as Record<string, unknown>)[id];
        if (typeof value === 'string' && new RegExp(transId.pattern).test(value)) ids[id] = value;
      }
    }
    return {
      error: erro({
        errorComponent: component,
        errorCode,
        errorDescription,
        errorDetail,
        errorMessageType: type,
        ...ids,
      }),
    };
  };
  if (!received || typeof received !== 'object' || Array.isArray(received)) {
    return refuse('101', 'Message received invalid: not a JSON object', 'message');
  }
  const { messageType, messageVersion } = received as Record<string, unknown>;
  if (messageType !== undefined && messageType !== type) {
    return refuse('101', `Message received invalid: expected ${type}`, 'messageType');
  }
  if (typeof messageVersion === 'string' && messageVersion !== EMV_3DS_VERSION) {
    return refuse(
      '102',
      `Message version number not supported (supported: ${EMV_3DS_VERSION})`,
      EMV_3DS_VERSION,
    );
  }
  const validate = validatorOf(type);
  if (validate(received)) return { message: received as unknown as MessageTypes[Type] };
  const errors = validate.errors ?? [];
  const missing = [...new Set(errors.filter((e) => e.keyword === 'required').map(elementOf))];
  if (missing.length > 0) {
    return refuse('201', 'Required data element missing', missing.join(','));
  }
  const invalid = [...new Set(errors.filter((e) => e.keyword !== 'if').map(elementOf))];
  return refuse('203', 'Format of one or more data elements is invalid', invalid.join(','));
}
