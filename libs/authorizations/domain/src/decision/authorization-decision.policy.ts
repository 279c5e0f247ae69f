import type { CardBlock, CardStatus, CardVerificationMethod } from '@cip/cards/contract';
import { DomainError } from '@cip/shared/contracts';
import type { UserStatus } from '@cip/users/contract';
import type { AuthorizationDecision, DeclineDetail, DeclineReasonCode, Fee } from '../authorization.types';
import type { DecidedBy } from '@cip/authorizations/contract';
import type { DistributorVerdict } from '../decisioning/distributor-answer';
import { partialCharge } from '../decisioning/partial-approval';
import { isCurrencyCode, merchantAmountText, priceAuthorization, type MerchantCharge } from '../money';
import type { AuthorizationProgram } from './authorization-program';

// ---------------------------------------------------------------------------------------------------
// The decision on a payment (issue 12, spec facts 4 and 6, API-DECISIONS "Authorizations"): pure, so the
// network link and the sandbox simulation decide alike, from facts the service gathered. The checks run in
// the order the issue gives and the first that fails names the decline reason:
//   1. card status (inactive, frozen, revoked, blocked, past its expiry month) or user status -> notActive
//   2. the PIN or CVV2 check against the vault (the cards context counts failures to card.blocked) -> other;
//      a 3-D Secure authentication value that does not verify -> other
//   3. the merchant currency without a program rate, an amount beyond the platform's bound -> other (the
//      currency with `declineDetail: currency_not_supported`, so a distributor tells it from other declines)
//   4. spending controls and MCC groups (evaluateControls of the cards context) -> failedControl
//   5. the available balance against the amount and its fees -> insufficientFund
//   6. otherwise confirmed, with a hold of the amount and its fees on the wallet.
// An advice (stand-in or offline) is a payment the network already approved without asking: it is
// recorded whatever the card, the controls or the balance, with a forced hold that may take the balance
// negative (spec fact 4). Nothing else goes negative at decision: no overdraft is granted on a request.
// ---------------------------------------------------------------------------------------------------

/** `stand_in`: the network decided while the platform was unreachable; `offline`: the chip did. */
export type Advice = 'stand_in' | 'offline';

/** The answer of the cards context's `evaluateControls` for this payment's amount. */
export type ControlsOutcome = { ok: true } | { ok: false; control: string; detail: string };

export interface AuthorizationFacts {
  request: MerchantCharge & {
    /** The decision time, `YYYY-MM-DDTHH:mm:ss.sssZ` (spec part 6 `decidedAt`). */
    at: string;
    advice?: Advice;
  };
  card: { status: CardStatus; blocks: readonly CardBlock[]; expMonth: number; expYear: number };
  userStatus: UserStatus;
  /**
   * The check of the 3-D Secure authentication value an e-commerce payment carried (the three-ds context's
   * `verifyAuthenticationValue`); absent when it carried none (decided as before: the program does not
   * require 3-D Secure).
   */
  threeDs?: ThreeDsOutcome;
  /** The outcome of the request's PIN or CVV2 check; null when it carried neither. */
  verification: { method: CardVerificationMethod; ok: boolean } | null;
  controls: ControlsOutcome;
  /** The wallet's available balance (balance minus holds), minor units; may be negative. */
  availableBalance: number;
  program: AuthorizationProgram;
  /**
   * The distributor's real-time decision (`decisioning/`), asked once every other check passed; absent when
   * the distributor has no decisioning configured.
   */
  distributor?: DistributorVerdict;
}

/** The 3-D Secure check of a payment: its ECI and whether the value verified (and why not). */
export interface ThreeDsOutcome {
  eci: string;
  verified: boolean;
  /** Why it did not verify (`unknown`, `mismatch`, `eci`, `reused`, `expired`), for operators. */
  reason?: string;
}

/** The decline detail of a payment whose authentication value did not verify (response code 63). */
export const AUTHENTICATION_NOT_VERIFIED = '3-D Secure authentication value not verified';

/** A hold to place on the wallet (`WalletLedger.placeHold`), minor units. */
export interface HoldToPlace {
  amount: number;
  /** An advice: recorded whatever the balance. */
  force?: true;
}

export interface AuthorizationOutcome {
  decision: AuthorizationDecision;
  declineReasonCode?: DeclineReasonCode;
  /** A decline's finer cause for the distributor (the view and the `cardAuthorization.rejected` Event). */
  declineDetail?: DeclineDetail;
  /** Why it was declined, for operators and logs (no card data); never sent to the network. */
  detail?: string;
  /** Minor units of the wallet (0 when the payment could not be priced). */
  amount: number;
  merchantAmount: string;
  merchantCurrency: string;
  fee: Fee;
  /** The fees in minor units of the wallet. */
  feeTotal: number;
  fxRate: string | null;
  /** Null when rejected, or for a zero-amount check (account verification): nothing to hold. */
  hold: HoldToPlace | null;
  /** Set when the distributor's real-time decisioning took part; absent: the platform decided alone. */
  decidedBy?: DecidedBy;
  /** A partial approval: the minor units the network asked for (`amount` is what was approved). */
  requestedAmount?: number;
}

const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Decides a payment request; throws only for facts no request can carry (a malformed time, an unpriceable advice). */
export function decideAuthorization(facts: AuthorizationFacts): AuthorizationOutcome {
  const { request, program } = facts;
  requireSpecTime(request.at, 'Decision time');
  const priced = priceAuthorization(request, program, { authFee: true });

  if (request.advice) {
    if (!priced.ok) {
      throw new DomainError(
        'validation_error',
        `The ${request.advice} advice cannot be recorded: ${priced.detail}`,
      );
    }
    const { ok: _ok, ...amounts } = priced;
    const total = priced.amount + priced.feeTotal;
    return { decision: 'confirmed', ...amounts, hold: total > 0 ? { amount: total, force: true } : null };
  }

  const readable = isCurrencyCode(request.merchantCurrency) && Number.isSafeInteger(request.merchantAmount);
  const unpriced = {
    amount: 0,
    merchantAmount: readable
      ? merchantAmountText(Math.abs(request.merchantAmount), request.merchantCurrency)
      : String(request.merchantAmount),
    merchantCurrency: request.merchantCurrency,
    fee: {},
    feeTotal: 0,
    fxRate: null,
  };
  const amounts = priced.ok ? (({ ok: _ok, ...rest }) => rest)(priced) : unpriced;
  const reject = (
    declineReasonCode: DeclineReasonCode,
    detail: string,
    declineDetail?: DeclineDetail,
  ): AuthorizationOutcome => ({
    decision: 'rejected',
    declineReasonCode,
    ...(declineDetail ? { declineDetail } : {}),
    detail,
    ...amounts,
    hold: null,
  });

  const inactive = notActive(facts);
  if (inactive) return reject('notActive', inactive);
  if (facts.verification && !facts.verification.ok) {
    return reject('other', `wrong ${facts.verification.method === 'pin' ? 'PIN' : 'CVV2'}`);
  }
  if (facts.threeDs && !facts.threeDs.verified) {
    return reject('other', `${AUTHENTICATION_NOT_VERIFIED}: ${facts.threeDs.reason ?? 'unknown'}`);
  }
  if (!priced.ok) return reject('other', priced.detail, priced.declineDetail);
  if (!facts.controls.ok) return reject('failedControl', facts.controls.detail);

  // The distributor's real-time decision (issue 12, decisioning/). Its decline is the distributor's own
  // control (`failedControl`); a fallback decline after a timeout or an unusable answer is `other`. A
  // partial approval is priced again on the approved amount (`partialCharge`: USD merchants only, others
  // are declined) and goes on to the funds check like any approval.
  const verdict = facts.distributor;
  const partial = verdict?.amount !== undefined ? partialCharge(request, verdict.amount) : undefined;
  if (verdict && (verdict.decision === 'decline' || partial === null)) {
    const declined = reject(
      verdict.decidedBy === 'distributor' ? 'failedControl' : 'other',
      partial === null ? `${verdict.detail}: not possible for this payment` : verdict.detail,
    );
    return { ...declined, decidedBy: verdict.decidedBy };
  }
  const charged = partial ? priceAuthorization(partial, program, { authFee: true }) : priced;
  if (!charged.ok) return reject('other', charged.detail, charged.declineDetail);
  const decidedBy = verdict ? { decidedBy: verdict.decidedBy } : {};
  const { ok: _charged, ...chargedAmounts } = charged;
  const approved = partial ? { ...chargedAmounts, requestedAmount: priced.amount } : amounts;

  const total = charged.amount + charged.feeTotal;
  if (total > facts.availableBalance) {
    return reject(
      'insufficientFund',
      `available balance of ${facts.availableBalance} minor units does not cover ${total}`,
    );
  }
  return { decision: 'confirmed', ...approved, ...decidedBy, hold: total > 0 ? { amount: total } : null };
}

/** Refuses a time not in the spec's `YYYY-MM-DDTHH:mm:ss.sssZ` (what `decidedAt` and the events carry). */
export function requireSpecTime(at: string, what: string): void {
  if (!ISO_MILLIS.test(at) || Number.isNaN(Date.parse(at))) {
    throw new DomainError('validation_error', `${what} ${at} is not YYYY-MM-DDTHH:mm:ss.sssZ`);
  }
}

/** Why the card or its user cannot pay now, or null. */
function notActive({ card, userStatus, request }: AuthorizationFacts): string | null {
  if (card.status !== 'active') return `card is ${card.status}`;
  if (card.blocks.length > 0) return `card is blocked (${card.blocks.join(', ')})`;
  if (isPastExpiry(card, request.at)) {
    return `card expired at the end of ${card.expYear}-${String(card.expMonth).padStart(2, '0')}`;
  }
  if (userStatus !== 'active') return `user is ${userStatus}`;
  return null;
}

/** A card is valid through the last millisecond of its expiry month, UTC. */
export function isPastExpiry(card: { expMonth: number; expYear: number }, at: string): boolean {
  // Date.UTC's month is 0-based, so `expMonth` is the month after expiry; it carries December into January.
  return Date.parse(at) >= Date.UTC(card.expYear, card.expMonth, 1);
}
