import {
  TRANS_STATUS_REASONS,
  type DeviceChannel,
  type MessageCategory,
  type TransStatusReason,
} from '@cip/three-ds/contract';

// ---------------------------------------------------------------------------------------------------
// The ACS's rules: how an AReq is answered (libs/three-ds/domain/README.md lists them with their reasons).
// Pure: the service gathers the facts (the card through the cards contract's network API, whether the
// merchant is known) and acts on the outcome.
// ---------------------------------------------------------------------------------------------------

/**
 * Frictionless limit: a payment of at most 30 units of its currency (the size of the European low-value
 * exemption, PSD2 RTS article 16) at a merchant the cardholder already approved a challenge for is
 * authenticated without one.
 */
export const FRICTIONLESS_LIMIT_UNITS = 30;

export interface AcsFacts {
  /** The card the AReq's PAN and expiry name, or null when there is none. */
  card: { status: string; blocks: readonly string[]; expMonth: number; expYear: number } | null;
  now: Date;
  messageCategory: MessageCategory;
  deviceChannel: DeviceChannel;
  /** The AReq's `purchaseAmount` and `purchaseExponent` (payments only). */
  amount: { minor: bigint; exponent: number } | null;
  /** `threeDSRequestorChallengeInd`, when sent. */
  challengeIndicator?: string;
  /** `threeDSRequestorDecReqInd = Y`: the requestor accepts a decoupled (out-of-band) authentication. */
  decoupledRequested: boolean;
  /** The cardholder approved a challenge of this card at this merchant before. */
  knownMerchant: boolean;
}

export type AcsOutcome =
  | { transStatus: 'Y' }
  | { transStatus: 'C' }
  | { transStatus: 'D' }
  | { transStatus: 'N' | 'R'; transStatusReason: TransStatusReason };

/** The requestor asked for a challenge (03) or is mandated to have one (04). */
const CHALLENGE_ASKED = new Set(['03', '04']);

/** Whether a card is past its expiry month (a card is good to the last day of it, UTC). */
export const cardExpired = (expMonth: number, expYear: number, now: Date): boolean =>
  now.getTime() >= Date.UTC(expYear, expMonth, 1);

/** Whether an amount is within the frictionless limit (exact: minor units compared as integers). */
export const withinFrictionlessLimit = (amount: { minor: bigint; exponent: number }): boolean =>
  amount.minor <= BigInt(FRICTIONLESS_LIMIT_UNITS) * 10n ** BigInt(amount.exponent);

/**
 * In order: no card (N 08 "no card record"), an expired card (N 05), a card that is not active or is
 * blocked (R 12 "transaction not permitted": the issuer asks that no authorization be attempted), a 3RI
 * request (N 21: the ACS authenticates cardholders, not merchants' own initiatives), a low-value payment at a
 * known merchant without a requested challenge (Y, frictionless), else a challenge: decoupled (D), the
 * distributor's app asking the cardholder, when the requestor accepts it; else, in a browser, a challenge
 * page (C) where the cardholder is asked to approve in the distributor's app; otherwise (an app that does not
 * accept decoupled authentication: the SDK's native challenge is not offered) N 23.
 */
export function acsOutcome(facts: AcsFacts): AcsOutcome {
  const { card } = facts;
  if (!card) return { transStatus: 'N', transStatusReason: TRANS_STATUS_REASONS.noCardRecord };
  if (cardExpired(card.expMonth, card.expYear, facts.now)) {
    return { transStatus: 'N', transStatusReason: TRANS_STATUS_REASONS.expiredCard };
  }
  if (card.status !== 'active' || card.blocks.length > 0) {
    return { transStatus: 'R', transStatusReason: TRANS_STATUS_REASONS.transactionNotPermitted };
  }
  if (facts.deviceChannel === '03') {
    return { transStatus: 'N', transStatusReason: TRANS_STATUS_REASONS.threeRiNotSupported };
  }
  const frictionless =
    facts.messageCategory === '01' &&
    facts.amount !== null &&
    withinFrictionlessLimit(facts.amount) &&
    facts.knownMerchant &&
    !CHALLENGE_ASKED.has(facts.challengeIndicator ?? '');
  if (frictionless) return { transStatus: 'Y' };
  if (facts.decoupledRequested) return { transStatus: 'D' };
  if (facts.deviceChannel === '02') return { transStatus: 'C' };
  return { transStatus: 'N', transStatusReason: TRANS_STATUS_REASONS.decoupledRequiredNotRequested };
}

/** `purchaseAmount` in minor units with its exponent as a decimal string (`"1234"`, 2 -> `"12.34"`). */
export function decimalAmount(minor: bigint, exponent: number): string {
  if (exponent === 0) return minor.toString();
  const digits = minor.toString().padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** The masked PAN as cards show it: the first six digits, six stars, the last four. */
export const maskedPanOf = (pan: string): string => `${pan.slice(0, 6)}******${pan.slice(-4)}`;
