import type { AuthorizationFacts } from './decision/authorization-decision.policy';
import type { MerchantCharge, ProgramPricing } from './money';

// ---------------------------------------------------------------------------------------------------
// Commands of the authorization decider. Time, ids and every fact the decision needs arrive in the
// command; `networkKey` is the network message's identity (a retry carries the same one).
// ---------------------------------------------------------------------------------------------------

interface Parties {
  authorizationId: string;
  distributorId: string;
  cardId: string;
  userId: string;
  walletId: string;
}

/** A payment request (or advice) from the network: decided by `decideAuthorization` on `facts`. */
export interface DecideAuthorization {
  type: 'DecideAuthorization';
  data: Parties & { networkKey: string; facts: AuthorizationFacts };
}

/** A refund (a credit to the wallet), with or without the payment it gives back. */
export interface RefundAuthorization {
  type: 'RefundAuthorization';
  data: Parties & {
    networkKey: string;
    charge: MerchantCharge;
    originalAuthorizationId?: string;
    pricing: ProgramPricing;
    now: string;
    /** Why the refund is declined before any credit (more than its payment cleared and was not refunded). */
    declined?: string;
  };
}

/**
 * The outcome of a refund's credit on the wallet (the ledger is the judge: it refuses a credit that would take
 * the balance beyond the platform's bound): `credited` clears the refund; otherwise it is rejected, with the
 * ledger's reason.
 */
export interface RecordRefundCredit {
  type: 'RecordRefundCredit';
  data: { credited: true; now: string } | { credited: false; reason: string; now: string };
}

/**
 * On the payment a refund names: counts the refund against what the payment cleared and was not refunded yet
 * (refused beyond it), once per refund; `ReleaseRefund` gives it back when the refund's credit was refused.
 */
export interface ReserveRefund {
  type: 'ReserveRefund';
  data: { refundAuthorizationId: string; amount: number; now: string };
}

export interface ReleaseRefund {
  type: 'ReleaseRefund';
  data: { refundAuthorizationId: string; now: string };
}

/** A clearing the network posts with no authorization before it (offline, force post). */
export interface ForcePostClearing {
  type: 'ForcePostClearing';
  data: Parties & { networkKey: string; charge: MerchantCharge; pricing: ProgramPricing; now: string };
}

/**
 * A clearing of `amount` (minor units, the network's USD billing amount). `final`: the network says no
 * more clearings follow, so what remains held is released.
 */
export interface ClearAuthorization {
  type: 'ClearAuthorization';
  data: { networkKey: string; amount: number; final: boolean; now: string };
}

/** A reversal of `amount` (minor units), or of everything still held when absent. */
export interface ReverseAuthorization {
  type: 'ReverseAuthorization';
  data: { networkKey: string; amount?: number; now: string };
}

/** The expiry scheduler's: release what is still held once the program's window has passed. */
export interface ExpireAuthorization {
  type: 'ExpireAuthorization';
  data: { now: string };
}

/**
 * The unrecorded-hold sweep's (`UnrecordedHoldSweep`): a hold was placed on the wallet for this authorization
 * (`holdForDecision`) and no decision was recorded within the network's timeout (the issuer died in between, or
 * decided too late to be answered). Recorded only on a stream that does not exist, so a decision that comes
 * later conflicts with it and declines; the hold is released.
 */
export interface AbandonAuthorization {
  type: 'AbandonAuthorization';
  data: { authorizationId: string; walletId: string; holdId: string; placedAt: string; now: string };
}

export type AuthorizationCommand =
  | DecideAuthorization
  | RecordRefundCredit
  | ReserveRefund
  | ReleaseRefund
  | AbandonAuthorization
  | RefundAuthorization
  | ForcePostClearing
  | ClearAuthorization
  | ReverseAuthorization
  | ExpireAuthorization;
