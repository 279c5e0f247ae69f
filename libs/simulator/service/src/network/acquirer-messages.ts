import { DE048, F, IsoMessage, transmissionDateTime, writeSubelements } from '@cip/shared/iso8583';
import type { StandInOutcome } from '@cip/simulator/domain';

// ---------------------------------------------------------------------------------------------------
// What a simulated acquirer puts on the wire for a card payment, a refund, a reversal and the advices the
// network owes the issuer (docs/iso8583.md has every field). Pure: time, STAN and RRN arrive as arguments.
// ---------------------------------------------------------------------------------------------------

/** DE-022 PAN entry mode + PIN capability (1987 layout). */
export const ENTRY_MODES = {
  ecommerce: '810',
  chip: '051',
  contactless: '071',
  manual: '011',
} as const;
export type EntryMode = keyof typeof ENTRY_MODES;

/** Processing code positions 1-2 (jPOS-CMF): `00` purchase, `20` refund; accounts `00` unspecified. */
export const PROCESSING_CODES = { purchase: '000000', refund: '200000' } as const;

export interface CardAcceptor {
  name: string;
  city: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  mcc: string;
  merchantId: string;
  terminalId: string;
}

/** The card as the terminal reads it. Never logged: `IsoMessage` masks these fields. */
export interface PresentedCard {
  pan: string;
  expMonth: number;
  expYear: number;
  cvv2?: string;
  /** The encrypted PIN block (DE-052), when a PIN was entered. */
  pinBlock?: Buffer;
}

/** Everything of one acquirer transaction that is not card data: kept by the network for later messages. */
export interface AcquirerTransaction {
  acquirerId: string;
  /** ISO 3166 numeric country of the acquirer (DE-019). */
  acquirerCountry: string;
  forwardingId?: string;
  stan: string;
  rrn: string;
  processingCode: string;
  amountMinor: number;
  /** ISO 4217 numeric (DE-049). */
  currencyNumeric: string;
  acceptor: CardAcceptor;
  entryMode: EntryMode;
  /** When the acquirer sent it: DE-007 (UTC) and the local date and time DE-012/DE-013 (UTC in the sandbox). */
  at: Date;
  /** A refund's purchase, by its RRN at the same acquirer (DE-048 subelement 63); absent for payments. */
  originalRrn?: string;
  /** A 3-D Secure authenticated e-commerce payment: DE-048 subelements 43 (the value) and 42 (the ECI). */
  threeDs?: { authenticationValue: string; eci: string };
}

const n12 = (minor: number) => String(minor).padStart(12, '0');
const two = (n: number) => String(n).padStart(2, '0');

/** DE-014: `YYMM`. */
export const expiryYymm = (card: Pick<PresentedCard, 'expMonth' | 'expYear'>) =>
  two(card.expYear % 100) + two(card.expMonth);

/** DE-043: name (25) + city (13) + country (2), printable ASCII, cut or padded. */
export function cardAcceptorNameLocation(acceptor: Pick<CardAcceptor, 'name' | 'city' | 'country'>): string {
  return (
    asciiField(acceptor.name, 25) +
    asciiField(acceptor.city, 13) +
    asciiField(acceptor.country.toUpperCase(), 2)
  );
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Printable ASCII cut or padded to `width`; accents are dropped (é -> e), other characters removed. */
function asciiField(text: string, width: number): string {
  // The usual case (already ASCII) skips the Unicode normalization, which dominates on the hot path.
  const ascii = PRINTABLE_ASCII.test(text) ? text : text.normalize('NFKD').replace(/[^\x20-\x7e]/g, '');
  return ascii.length === width ? ascii : ascii.slice(0, width).padEnd(width, ' ');
}

/** The 0100 of a card payment (processing code 00) or of an online refund (20). */
export function authorizationRequest(tx: AcquirerTransaction, card: PresentedCard): IsoMessage {
  const isoTime = transmissionDateTime(tx.at);
  const cardPresent = tx.entryMode !== 'ecommerce' && tx.entryMode !== 'manual';
  return new IsoMessage('0100', {
    [F.PAN]: card.pan,
    [F.PROCESSING_CODE]: tx.processingCode,
    [F.AMOUNT_TRANSACTION]: n12(tx.amountMinor),
    [F.TRANSMISSION_DATE_TIME]: isoTime,
    [F.STAN]: tx.stan,
    [F.LOCAL_TIME]: isoTime.slice(4),
    [F.LOCAL_DATE]: isoTime.slice(0, 4),
    [F.EXPIRY]: expiryYymm(card),
    [F.MCC]: tx.acceptor.mcc,
    [F.ACQUIRER_COUNTRY]: tx.acquirerCountry,
    [F.POS_ENTRY_MODE]: ENTRY_MODES[tx.entryMode],
    [F.POS_CONDITION_CODE]: tx.entryMode === 'ecommerce' ? '59' : '00',
    [F.ACQUIRING_INSTITUTION_ID]: tx.acquirerId,
    [F.FORWARDING_INSTITUTION_ID]: tx.forwardingId,
    [F.RRN]: tx.rrn,
    [F.TERMINAL_ID]: tx.acceptor.terminalId,
    [F.MERCHANT_ID]: tx.acceptor.merchantId,
    [F.CARD_ACCEPTOR_NAME_LOCATION]: cardAcceptorNameLocation(tx.acceptor),
    [F.ADDITIONAL_DATA_PRIVATE]: writeSubelements({
      [DE048.ECI]: tx.threeDs?.eci,
      [DE048.AUTHENTICATION_VALUE]: tx.threeDs?.authenticationValue,
      [DE048.ORIGINAL_RRN]: tx.originalRrn,
    }),
    [F.CURRENCY_TRANSACTION]: tx.currencyNumeric,
    [F.PIN_DATA]: card.pinBlock,
    // CVV2 is a card-not-present check: a terminal reading the chip does not send it.
    [F.CVV2]: cardPresent ? undefined : card.cvv2,
  });
}

/** The 0120 stand-in advice: the original request's fields, the decision taken (DE-039/038) and why (DE-060). */
export function standInAdvice(request: IsoMessage, outcome: StandInOutcome): IsoMessage {
  const advice = new IsoMessage('0120');
  for (const field of request.fieldNumbers()) advice.set(field, request.valueAt(field));
  // A PIN block is verified once, online; an advice reports a decision and carries no PIN.
  advice.delete(F.PIN_DATA);
  advice.delete(F.CVV2);
  advice.set(F.RESPONSE_CODE, outcome.responseCode);
  advice.set(F.APPROVAL_CODE, outcome.approvalCode);
  advice.set(F.ADVICE_REASON, outcome.reason);
  return advice;
}

/** DE-090: original MTI n4, STAN n6, DE-007 n10, acquirer id n11, forwarding id n11. */
export function originalDataElements(tx: AcquirerTransaction, originalMti = '0100'): string {
  return (
    originalMti +
    tx.stan +
    transmissionDateTime(tx.at) +
    tx.acquirerId.padStart(11, '0') +
    (tx.forwardingId ?? '').padStart(11, '0')
  );
}

/** DE-095 of a partial reversal: the new total (transaction and settlement amounts), no fees. */
export function replacementAmounts(remainingMinor: number): string {
  return n12(remainingMinor) + n12(remainingMinor) + 'C00000000' + 'C00000000';
}

export interface ReversalRequest {
  /** The reversal's own STAN and transmission time; the RRN stays the original's. */
  stan: string;
  at: Date;
  /** What the authorization is worth after this reversal; 0 for a full reversal (no DE-095). */
  remainingMinor: number;
}

/**
 * The 0400 reversal request of an earlier 0100 (full, or partial with DE-095), or with `mti: '0420'` the
 * reversal advice the acquirer sends when it got no answer (DE-060 `REVERSAL:timeout`).
 */
export function reversalMessage(
  tx: AcquirerTransaction,
  card: Pick<PresentedCard, 'pan'>,
  reversal: ReversalRequest,
  mti: '0400' | '0420' = '0400',
): IsoMessage {
  const isoTime = transmissionDateTime(reversal.at);
  return new IsoMessage(mti, {
    [F.PAN]: card.pan,
    [F.PROCESSING_CODE]: tx.processingCode,
    [F.AMOUNT_TRANSACTION]: n12(tx.amountMinor),
    [F.TRANSMISSION_DATE_TIME]: isoTime,
    [F.STAN]: reversal.stan,
    [F.LOCAL_TIME]: isoTime.slice(4),
    [F.LOCAL_DATE]: isoTime.slice(0, 4),
    [F.ACQUIRING_INSTITUTION_ID]: tx.acquirerId,
    [F.FORWARDING_INSTITUTION_ID]: tx.forwardingId,
    [F.RRN]: tx.rrn,
    [F.TERMINAL_ID]: tx.acceptor.terminalId,
    [F.MERCHANT_ID]: tx.acceptor.merchantId,
    [F.CURRENCY_TRANSACTION]: tx.currencyNumeric,
    [F.ADVICE_REASON]: mti === '0420' ? 'REVERSAL:timeout' : undefined,
    [F.ORIGINAL_DATA_ELEMENTS]: originalDataElements(tx),
    [F.REPLACEMENT_AMOUNTS]:
      reversal.remainingMinor > 0 ? replacementAmounts(reversal.remainingMinor) : undefined,
  });
}
