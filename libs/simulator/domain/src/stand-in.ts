/**
 * The issuer's stand-in parameters, as the network holds them (conservative by design: the network cannot
 * see the balance). Approve a purchase up to `limitMinor` of the transaction currency if the card has not
 * expired; approve a refund (a credit); decline anything else.
 */
export interface StandInRules {
  /** The largest purchase approved in stand-in, in minor units of the transaction's currency. */
  limitMinor: number;
}

/** Response codes of stand-in declines (docs/iso8583.md, DE-039). */
export const STAND_IN_CODES = { approved: '00', expired: '54', overLimit: '61', notPermitted: '57' } as const;

/** Why the network stood in (DE-060 of the advice). */
export type StandInReason = 'STIP:timeout' | 'STIP:unavailable';

/** The network's decision when it stood in, as the 0120 advice carries it. */
export interface StandInOutcome {
  responseCode: string;
  /** DE-038, approvals only. */
  approvalCode?: string;
  reason: StandInReason;
}

/** What stand-in looks at in the unanswered 0100. */
export interface StandInRequest {
  /** DE-014, `YYMM`. */
  expiryYymm: string;
  /** DE-003. */
  processingCode: string;
  /** DE-004. */
  amountMinor: number;
}

/** The network's decision on the issuer's behalf for a 0100 the issuer did not answer. */
export function standInDecision(
  request: StandInRequest,
  rules: StandInRules,
  now: Date,
  reason: StandInReason,
  approvalCode: string,
): StandInOutcome {
  const expiry = request.expiryYymm;
  // A card is valid through the last day of its expiry month (YYMM, years 20YY): until the next month's 1st.
  const validUntil = Date.UTC(2000 + Number(expiry.slice(0, 2)), Number(expiry.slice(2, 4)), 1);
  const transactionType = request.processingCode.slice(0, 2);
  let responseCode: string = STAND_IN_CODES.approved;
  if (!/^\d{2}(0[1-9]|1[0-2])$/.test(expiry) || now.getTime() >= validUntil) {
    responseCode = STAND_IN_CODES.expired;
  } else if (transactionType !== '00' && transactionType !== '20') {
    responseCode = STAND_IN_CODES.notPermitted;
  } else if (transactionType === '00' && request.amountMinor > rules.limitMinor) {
    responseCode = STAND_IN_CODES.overLimit;
  }
  return responseCode === STAND_IN_CODES.approved
    ? { responseCode, approvalCode, reason }
    : { responseCode, reason };
}
