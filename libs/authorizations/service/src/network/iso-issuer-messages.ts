import { MINOR_PER_CENT, type Advice, type MerchantCharge } from '@cip/authorizations/domain';
import {
  DE048,
  decryptPinBlock,
  F,
  IsoMessage,
  pinOfBlock,
  readSubelements,
  responseMtiOf,
} from '@cip/shared/iso8583';
import { iso4217Alpha } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// The issuer's reading of the network's ISO 8583 messages (docs/iso8583.md) and its answers. Reads only the
// fields the decision needs; the PAN, expiry, CVV2 and PIN block leave this file only towards the cards
// context's network API, and are never logged (IsoMessage masks them anyway).
// ---------------------------------------------------------------------------------------------------

/** Where a message comes from and which transaction it belongs to (RRN is constant over its life). */
export interface NetworkReference {
  acquirerId: string;
  rrn: string;
  stan: string;
}

/** An 0100 or 0120, read. */
export interface NetworkAuthorizationRequest {
  mti: '0100' | '0120';
  reference: NetworkReference;
  /** `<mti>:<acquirer>:<stan>:<rrn>`: a message seen again (a retry) carries the same. */
  networkKey: string;
  pan: string;
  /** `YYMM`. */
  expiry: string;
  cvv2?: string;
  /** The PIN of the DE-052 PIN block (ISO 9564 format 0 under the ZPK); `''` when it does not open. */
  pin?: string;
  /** `payment` (DE-003 `00`, `01`) or `refund` (`20`). */
  kind: 'payment' | 'refund';
  /** A refund's purchase: its RRN at the same acquirer (DE-048 subelement 63), when the acquirer named it. */
  originalRrn?: string;
  /**
   * The 3-D Secure authentication of an e-commerce payment (DE-022 `81x`), when the acquirer carried one:
   * the authentication value (DE-048 subelement 43) and its ECI (subelement 42, `05` when absent).
   */
  threeDs?: { authenticationValue: string; eci: string };
  charge: MerchantCharge;
  /** 0120 only: why the network decided alone, and what it decided (DE-039). */
  advice?: Advice;
  networkDecision?: string;
}

/** An 0400 or 0420, read. */
export interface NetworkReversalRequest {
  mti: '0400' | '0420';
  reference: NetworkReference;
  networkKey: string;
  pan?: string;
  expiry?: string;
  /** DE-095's new total (minor units of the transaction currency) for a partial reversal; absent: all. */
  replacementAmount?: number;
  currency: string | null;
  merchant: MerchantCharge['merchant'];
}

/** Thrown for a message that lacks what the issuer needs: answered `30`-like with `96`, never recorded. */
export class UnreadableMessage extends Error {}

const required = (message: IsoMessage, field: number, name: string): string => {
  const value = message.get(field);
  if (value === undefined || value.trim() === '')
    throw new UnreadableMessage(`${name} (DE-${field}) is missing`);
  return value;
};

export function referenceOf(message: IsoMessage): NetworkReference {
  return {
    acquirerId: required(message, F.ACQUIRING_INSTITUTION_ID, 'acquirer id'),
    rrn: required(message, F.RRN, 'RRN').trim(),
    stan: required(message, F.STAN, 'STAN'),
  };
}

const networkKeyOf = (mti: string, { acquirerId, rrn, stan }: NetworkReference): string =>
  `${mti}:${acquirerId}:${stan}:${rrn}`;

function merchantOf(message: IsoMessage): MerchantCharge['merchant'] {
  const location = message.get(F.CARD_ACCEPTOR_NAME_LOCATION) ?? '';
  const mid = message.get(F.MERCHANT_ID)?.trim();
  return {
    name: location.slice(0, 25).trim(),
    city: location.slice(25, 38).trim(),
    country: location.slice(38, 40).trim(),
    mcc: message.get(F.MCC) ?? '',
    ...(mid ? { mid } : {}),
  };
}

/**
 * An 0100 / 0120, read. `zpkHex`: the zone PIN key shared with the network (CARD_NETWORK_ZPK), under which
 * DE-052 arrives encrypted; a block that does not open to a format 0 PIN of this PAN reads as a wrong PIN.
 */
export function readAuthorizationRequest(message: IsoMessage, zpkHex: string): NetworkAuthorizationRequest {
  const mti = message.mti as '0100' | '0120';
  const reference = referenceOf(message);
  const pan = required(message, F.PAN, 'PAN');
  const processing = message.get(F.PROCESSING_CODE) ?? '000000';
  const currencyCode = required(message, F.CURRENCY_TRANSACTION, 'currency');
  const pinBlock = message.getBinary(F.PIN_DATA);
  const clearBlock = pinBlock && decryptPinBlock(pinBlock, zpkHex);
  const pin = pinBlock ? ((clearBlock && pinOfBlock(clearBlock, pan)) ?? '') : undefined;
  const reason = message.get(F.ADVICE_REASON) ?? '';
  const kind = processing.startsWith('20') ? 'refund' : 'payment';
  const elements = privateData(message);
  const originalRrn = kind === 'refund' ? elements[DE048.ORIGINAL_RRN]?.trim() || undefined : undefined;
  const ecommerce = (message.get(F.POS_ENTRY_MODE) ?? '').startsWith('81');
  const authenticationValue = elements[DE048.AUTHENTICATION_VALUE]?.trim();
  const threeDs =
    kind === 'payment' && ecommerce && authenticationValue
      ? { authenticationValue, eci: elements[DE048.ECI]?.trim() || '05' }
      : undefined;
  return {
    mti,
    reference,
    networkKey: networkKeyOf(mti, reference),
    pan,
    expiry: required(message, F.EXPIRY, 'expiry'),
    ...(message.get(F.CVV2) !== undefined ? { cvv2: message.get(F.CVV2) } : {}),
    ...(pin !== undefined ? { pin } : {}),
    kind,
    ...(originalRrn ? { originalRrn } : {}),
    ...(threeDs ? { threeDs } : {}),
    charge: {
      merchant: merchantOf(message),
      merchantAmount: Number(required(message, F.AMOUNT_TRANSACTION, 'amount')),
      merchantCurrency: iso4217Alpha(currencyCode) ?? currencyCode,
    },
    ...(mti === '0120'
      ? {
          advice: reason.startsWith('STIP:') ? ('stand_in' as const) : ('offline' as const),
          networkDecision: message.get(F.RESPONSE_CODE) ?? '00',
        }
      : {}),
  };
}

/** DE-048's subelements; a value that does not parse makes the message unreadable. */
function privateData(message: IsoMessage): Record<string, string> {
  try {
    return readSubelements(message.get(F.ADDITIONAL_DATA_PRIVATE));
  } catch {
    throw new UnreadableMessage('additional data (DE-048) does not parse');
  }
}

export function readReversalRequest(message: IsoMessage): NetworkReversalRequest {
  const mti = message.mti as '0400' | '0420';
  const reference = referenceOf(message);
  const replacement = message.get(F.REPLACEMENT_AMOUNTS);
  const currencyCode = message.get(F.CURRENCY_TRANSACTION);
  return {
    mti,
    reference,
    networkKey: networkKeyOf(mti, reference),
    ...(message.get(F.PAN) ? { pan: message.get(F.PAN) } : {}),
    ...(message.get(F.EXPIRY) ? { expiry: message.get(F.EXPIRY) } : {}),
    ...(replacement ? { replacementAmount: Number(replacement.slice(0, 12)) } : {}),
    currency: currencyCode ? (iso4217Alpha(currencyCode) ?? currencyCode) : null,
    merchant: merchantOf(message),
  };
}

/**
 * The response to `request` with `responseCode` (DE-039) and, approved, the approval code (DE-038). A
 * partial approval (`10`) carries the approved amount instead of the requested one in DE-004 (and in DE-006
 * when the request had it): `approvedAmount` in wallet minor units, a whole number of US cents (only a USD
 * charge is partially approved, see `partialCharge`).
 */
export function answer(
  request: IsoMessage,
  responseCode: string,
  approvalCode?: string,
  approvedAmount?: number,
): IsoMessage {
  const approvedCents =
    approvedAmount === undefined ? undefined : String(approvedAmount / MINOR_PER_CENT).padStart(12, '0');
  return new IsoMessage(responseMtiOf(request.mti), {
    [F.PROCESSING_CODE]: request.get(F.PROCESSING_CODE),
    [F.AMOUNT_TRANSACTION]: approvedCents ?? request.get(F.AMOUNT_TRANSACTION),
    ...(approvedCents && request.get(F.AMOUNT_CARDHOLDER_BILLING)
      ? { [F.AMOUNT_CARDHOLDER_BILLING]: approvedCents }
      : {}),
    [F.TRANSMISSION_DATE_TIME]: request.get(F.TRANSMISSION_DATE_TIME),
    [F.STAN]: request.get(F.STAN),
    [F.ACQUIRING_INSTITUTION_ID]: request.get(F.ACQUIRING_INSTITUTION_ID),
    [F.RRN]: request.get(F.RRN),
    [F.APPROVAL_CODE]: approvalCode,
    [F.RESPONSE_CODE]: responseCode,
    [F.CURRENCY_TRANSACTION]: request.get(F.CURRENCY_TRANSACTION),
  });
}
