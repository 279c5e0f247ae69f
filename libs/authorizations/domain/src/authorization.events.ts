import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';
import type {
  AuthorizationClearedEvent,
  AuthorizationDecidedEvent,
  AuthorizationExpiredEvent,
  AuthorizationReversedEvent,
} from '@cip/authorizations/contract';
import type {
  AuthorizationDecision,
  AuthorizationType,
  DeclineDetail,
  DeclineReasonCode,
  Fee,
  Merchant,
} from './authorization.types';
import type { Advice } from './decision/authorization-decision.policy';
import type { DecidedBy } from '@cip/authorizations/contract';
import { upcastLedgerInstructions, type LedgerInstruction } from './authorization.ledger';

// ---------------------------------------------------------------------------------------------------
// Domain events of an authorization stream (`aut-<uuid>`). Amounts are integers of the wallet's minor
// units (10^-6 USD); `merchantAmount` is the spec's decimal string. `networkKey` is the network message's
// identity (the link derives it from STAN, RRN and the acquirer): a message seen again changes nothing.
// `ledger` is what the event does to the wallet, carried out by the service after the append
// (`authorization.ledger.ts`). No PAN, CVV2 or PIN, ever.
// ---------------------------------------------------------------------------------------------------

/** Who the authorization belongs to (tenant filtering, the wallet its ledger instructions go to). */
type Parties = {
  authorizationId: string;
  distributorId: string;
  cardId: string;
  userId: string;
  walletId: string;
};

/** What was charged, priced under the program (`priceAuthorization`). */
type Charge = {
  merchant: Merchant;
  amount: number;
  merchantAmount: string;
  merchantCurrency: string;
  /** In 6 implied decimals. */
  fee: Fee;
  /** The fees in minor units of the wallet. */
  feeTotal: number;
  /** USD per unit of the merchant currency applied; null for USD. */
  fxRate: string | null;
};

/** A payment or refund answered, or an advice recorded. */
export type AuthorizationDecided = DomainEvent<
  'AuthorizationDecided',
  Parties &
    Charge & {
      type: AuthorizationType;
      decision: AuthorizationDecision;
      declineReasonCode?: DeclineReasonCode;
      /** A decline's finer cause for the distributor (`currency_not_supported`); absent on older events. */
      declineDetail?: DeclineDetail;
      /** Who decided (real-time decisioning); absent: the platform alone. */
      decidedBy?: DecidedBy;
      /** A partial approval (network response code 10): the minor units asked for; `amount` was approved. */
      requestedAmount?: number;
      /** Why it was declined, for operators (never sent to the network or in the public Event). */
      detail?: string;
      /** An e-commerce payment that carried a 3-D Secure authentication value: its ECI and the check. */
      threeDs?: { eci: string; verified: boolean };
      advice: Advice | null;
      /** A refund's payment, when the network named it. */
      originalAuthorizationId: string | null;
      /** Minor units by which clearings may exceed the authorized amount (the program's tolerance). */
      clearingAllowance: number;
      /** When an uncleared hold lapses; null when nothing is held. */
      expiresAt: string | null;
      networkKey: string;
      decidedAt: string;
      ledger: LedgerInstruction[];
    }
>;

/** A clearing the network posted without any authorization (force post): a Cleared event follows. */
export type AuthorizationForcePosted = DomainEvent<
  'AuthorizationForcePosted',
  Parties & Charge & { networkKey: string; at: string }
>;

export type AuthorizationCleared = DomainEvent<
  'AuthorizationCleared',
  {
    authorizationId: string;
    /** This clearing. */
    amount: number;
    clearedTotal: number;
    /** Still held for more clearings afterwards. */
    remaining: number;
    /** Released because the network marked a partial clearing final. */
    released: number;
    /** Cleared after the hold was gone (after expiry, or a force post): debited as a force post. */
    late: boolean;
    /** The hold open afterwards (null when none). */
    holdId: string | null;
    networkKey: string;
    at: string;
    ledger: LedgerInstruction[];
  }
>;

export type AuthorizationReversed = DomainEvent<
  'AuthorizationReversed',
  {
    authorizationId: string;
    amount: number;
    reversedTotal: number;
    remaining: number;
    holdId: string | null;
    networkKey: string;
    at: string;
    ledger: LedgerInstruction[];
  }
>;

/** `amount`: what was still held for the payment (its uncharged fees are released with it). */
export type AuthorizationExpired = DomainEvent<
  'AuthorizationExpired',
  { authorizationId: string; amount: number; at: string; ledger: LedgerInstruction[] }
>;

/**
 * A hold placed for this authorization before its decision, with no decision recorded within the network's
 * timeout: the authorization is abandoned (the network got no answer from the issuer, and reverses or stands
 * in) and the hold released. The stream's first event: a decision arriving later is declined, an advice
 * (the network stood in) is still recorded. Not an authorization the distributor sees.
 */
export type AuthorizationAbandoned = DomainEvent<
  'AuthorizationAbandoned',
  {
    authorizationId: string;
    walletId: string;
    holdId: string;
    /** When the hold was placed (the wallet's event). */
    placedAt: string;
    at: string;
    ledger: LedgerInstruction[];
  }
>;

/** The ledger refused a refund's credit (`reason`): the refund is rejected, nothing was credited. */
export type AuthorizationCreditRefused = DomainEvent<
  'AuthorizationCreditRefused',
  { authorizationId: string; amount: number; reason: string; at: string }
>;

/** On a payment: a refund counted against what it cleared (`refundedTotal` after it), or given back. */
export type AuthorizationRefundReserved = DomainEvent<
  'AuthorizationRefundReserved',
  {
    authorizationId: string;
    refundAuthorizationId: string;
    amount: number;
    refundedTotal: number;
    at: string;
  }
>;

export type AuthorizationRefundReleased = DomainEvent<
  'AuthorizationRefundReleased',
  {
    authorizationId: string;
    refundAuthorizationId: string;
    amount: number;
    refundedTotal: number;
    at: string;
  }
>;

export type AuthorizationEvent =
  | AuthorizationDecided
  | AuthorizationCreditRefused
  | AuthorizationRefundReserved
  | AuthorizationRefundReleased
  | AuthorizationAbandoned
  | AuthorizationForcePosted
  | AuthorizationCleared
  | AuthorizationReversed
  | AuthorizationExpired;

/**
 * How authorization streams are read: the ledger lists of events recorded before the wallet ledger had
 * partial operations are lifted to the calls they made (`upcastLedgerInstructions`).
 */
export const authorizationEvents = domainEventReader<AuthorizationEvent>({
  AuthorizationCleared: upcastLedgerInstructions,
  AuthorizationReversed: upcastLedgerInstructions,
  AuthorizationExpired: upcastLedgerInstructions,
});

/**
 * The contract publishes four of these as integration events: their data must stay what the domain writes,
 * or the build fails here rather than in another context's saga.
 */
export const PUBLISHED_EVENTS_MATCH_THE_CONTRACT: [
  AuthorizationDecided['data'] extends AuthorizationDecidedEvent['data'] ? true : never,
  AuthorizationCleared['data'] extends AuthorizationClearedEvent['data'] ? true : never,
  AuthorizationReversed['data'] extends AuthorizationReversedEvent['data'] ? true : never,
  AuthorizationExpired['data'] extends AuthorizationExpiredEvent['data'] ? true : never,
] = [true, true, true, true];
