import {
  AUTHENTICATION_NOT_VERIFIED,
  REFUND_EXCEEDS_CLEARED,
  type AuthorizationDecided,
} from '@cip/authorizations/domain';

// ---------------------------------------------------------------------------------------------------
// DE-039 of the issuer's answers (docs/iso8583.md). The public `declineReasonCode` is coarser (spec part
// 6); the network gets the precise code, derived from the recorded decision so a retried 0100 gets the
// same answer as the first.
// ---------------------------------------------------------------------------------------------------

export const RESPONSE = {
  approved: '00',
  /** Approved for less than asked: the approved amount is in DE-004 (the distributor's partial approval). */
  partialApproval: '10',
  doNotHonour: '05',
  /**
   * An 0400 reversal request of an authorization that holds nothing any more (cleared, declined, reversed,
   * expired, a refund): nothing is reversed, nothing changes. An 0420 advice is acknowledged `00` instead.
   */
  invalidTransaction: '12',
  /** A refund of more than its payment cleared and was not refunded. */
  invalidAmount: '13',
  invalidCard: '14',
  /**
   * An 0400 reversal request of a transaction the issuer has no record of and no hold for (an 0420 advice
   * is acknowledged `00`). A hold placed under its id without a recorded decision is released: `00`.
   */
  unableToLocate: '25',
  insufficientFunds: '51',
  expiredCard: '54',
  incorrectPin: '55',
  notPermitted: '57',
  /** Over a spending limit; for a refund, a credit the wallet cannot take (beyond the platform's bound). */
  overLimit: '61',
  restrictedCard: '62',
  /** The e-commerce payment's 3-D Secure authentication value did not verify. */
  securityViolation: '63',
  /** A second request with the RRN of a decided transaction but another STAN (not a retry). */
  duplicateTransmission: '94',
  systemMalfunction: '96',
  cvv2Mismatch: 'N7',
} as const;

/** The code of a recorded decision. */
export function responseCodeOf(
  decided: Pick<
    AuthorizationDecided['data'],
    'decision' | 'declineReasonCode' | 'detail' | 'requestedAmount'
  >,
): string {
  if (decided.decision === 'confirmed') {
    return decided.requestedAmount === undefined ? RESPONSE.approved : RESPONSE.partialApproval;
  }
  const detail = decided.detail ?? '';
  switch (decided.declineReasonCode) {
    case 'insufficientFund':
      return RESPONSE.insufficientFunds;
    case 'notActive':
      return detail.startsWith('card expired') ? RESPONSE.expiredCard : RESPONSE.restrictedCard;
    case 'failedControl':
      return /limit/.test(detail) ? RESPONSE.overLimit : RESPONSE.notPermitted;
    default:
      if (detail === 'wrong PIN') return RESPONSE.incorrectPin;
      if (detail === 'wrong CVV2') return RESPONSE.cvv2Mismatch;
      if (detail.startsWith(AUTHENTICATION_NOT_VERIFIED)) return RESPONSE.securityViolation;
      if (detail.startsWith(REFUND_EXCEEDS_CLEARED)) return RESPONSE.invalidAmount;
      return RESPONSE.doNotHonour;
  }
}

/** A six-character approval code (DE-038) of an authorization: stable, so a retry gets the same. */
export const approvalCodeOf = (authorizationId: string): string =>
  authorizationId
    .replace(/[^0-9a-f]/g, '')
    .slice(-6)
    .toUpperCase();

/** The issuer's answer to the message that decided an authorization (the first time, and on a retry). */
export function networkAnswerOf(decided: AuthorizationDecided['data']): {
  responseCode: string;
  authorizationId: string;
  approvalCode?: string;
  approvedAmount?: number;
} {
  const responseCode = responseCodeOf(decided);
  const { authorizationId } = decided;
  if (responseCode === RESPONSE.approved) {
    return { responseCode, authorizationId, approvalCode: approvalCodeOf(authorizationId) };
  }
  if (responseCode === RESPONSE.partialApproval) {
    return {
      responseCode,
      authorizationId,
      approvalCode: approvalCodeOf(authorizationId),
      approvedAmount: decided.amount,
    };
  }
  return { responseCode, authorizationId };
}
