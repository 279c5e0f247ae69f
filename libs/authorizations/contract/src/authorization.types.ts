// ---------------------------------------------------------------------------------------------------
// Value types of the authorizations context, as every other context and the API see them (spec parts 2
// and 6, API-DECISIONS "Authorizations")
// ---------------------------------------------------------------------------------------------------

/** Authorization ids are `aut-<uuid>`; the stream category and bus topic are `aut` too. */
export const AUTHORIZATION_ID_PREFIX = 'aut';

/**
 * `confirmed` (a hold on the wallet), `rejected` (declined: nothing held), `partially_cleared` (some of the
 * hold cleared, the rest still held), `cleared` (final: what cleared is debited, nothing held), `reversed`
 * (released before anything cleared), `expired` (the hold lapsed uncleared after the program's window).
 */
export const AUTHORIZATION_STATUSES = [
  'confirmed',
  'rejected',
  'partially_cleared',
  'cleared',
  'reversed',
  'expired',
] as const;
export type AuthorizationStatus = (typeof AUTHORIZATION_STATUSES)[number];

/** The answer to the network: `confirmed` or `rejected` (with a decline reason). */
export const AUTHORIZATION_DECISIONS = ['confirmed', 'rejected'] as const;
export type AuthorizationDecision = (typeof AUTHORIZATION_DECISIONS)[number];

/**
 * Spec part 6. Mapping (API-DECISIONS): card not active, blocked or expired, or user not active ->
 * `notActive`; spending control or MCC restriction -> `failedControl`; funds -> `insufficientFund`; wrong
 * CVV2/PIN and anything else -> `other`.
 */
export const DECLINE_REASON_CODES = ['insufficientFund', 'failedControl', 'notActive', 'other'] as const;
export type DeclineReasonCode = (typeof DECLINE_REASON_CODES)[number];

/**
 * What a distributor can tell apart within a decline reason (API-DECISIONS "Authorizations"), beside the
 * spec's `declineReasonCode`, which keeps its four values: `currency_not_supported` is a decline `other`
 * because the merchant currency is not ISO 4217's or the program has no fx rate for it.
 */
export const DECLINE_DETAILS = ['currency_not_supported'] as const;
export type DeclineDetail = (typeof DECLINE_DETAILS)[number];

/** A refund is an authorization of `type: "refund"` (a credit to the wallet). */
export const AUTHORIZATION_TYPES = ['payment', 'refund'] as const;
export type AuthorizationType = (typeof AUTHORIZATION_TYPES)[number];

/** The merchant as the network names it (spec part 6: strings; `mid` optional). `mcc` is four digits. */
export interface Merchant {
  name: string;
  city: string;
  /** ISO 3166-1 alpha-2 or alpha-3, as the network sends it. */
  country: string;
  mcc: string;
  mid?: string;
}

/** Fees are integers in 6 implied decimals: the value times 1,000,000 of the unit (USD). */
export const FEE_IMPLIED_DECIMALS = 6;
export const FEE_KINDS = ['fx', 'atm', 'auth'] as const;
export type FeeKind = (typeof FEE_KINDS)[number];

/**
 * The fees of one authorization (spec part 6), each present only when charged: `fx` for a merchant
 * currency other than USD, `atm` for a cash withdrawal, `auth` per authorization, as the program sets them.
 */
export type Fee = Partial<Record<FeeKind, number>>;

/** The card currency: 1 USDC settles 1 USD (API-DECISIONS, "Conventions"). */
export const CARD_CURRENCY = 'USD';
