import type {
  AuthorizationDecision,
  AuthorizationStatus,
  AuthorizationType,
  DeclineDetail,
  DeclineReasonCode,
  Fee,
  Merchant,
} from './authorization.types';
import type { DecidedBy } from './authorization-decisioning';

/**
 * An authorization as the API shows it (`GET /v1/authorizations/{id}`), plus the owning distributor (kept
 * for tenant filtering, never rendered). The spec part 6 fields first, then the lifecycle. Money fields
 * follow the API's conventions: `amount`, `clearedAmount`, `reversedAmount` are JSON numbers of USD (1
 * USDC settles 1 USD); `merchantAmount` is the original amount as a decimal string in the merchant's
 * currency; `fee` holds integers in 6 implied decimals. Never a PAN, CVV2 or PIN.
 */
export interface AuthorizationView {
  id: string;
  distributorId: string;
  cardId: string;
  userId: string;
  walletId: string;
  type: AuthorizationType;
  status: AuthorizationStatus;
  /** The answer given to the network; a force-posted clearing (no authorization was asked) is `confirmed`. */
  decision: AuthorizationDecision;
  /** Rejected only. */
  declineReasonCode?: DeclineReasonCode;
  /** Rejected only, when the reason has a finer cause a distributor can act on (`currency_not_supported`). */
  declineDetail?: DeclineDetail;
  merchantName: string;
  merchantMcc: string;
  merchant: Merchant;
  /** USD units: what was authorized (for a refund, what is credited). */
  amount: number;
  currency: string;
  /** The original amount, in `merchantCurrency`, as a decimal string (`"1234.50"`, `"1500"` for JPY). */
  merchantAmount: string;
  merchantCurrency: string;
  fee: Fee;
  /** `YYYY-MM-DDTHH:mm:ss.sssZ`; absent on a force-posted clearing, which no one decided. */
  decidedAt?: string;
  /** USD units cleared so far (final once `cleared`). */
  clearedAmount: number;
  /** USD units released by reversals. */
  reversedAmount: number;
  /** When an uncleared hold lapses (decision time plus the program's window; 7 days by default). */
  expiresAt: string | null;
  /** The payment a refund gives back, when the network named one. */
  originalAuthorizationId: string | null;
  /** Set on a stand-in or offline advice: the network approved it without asking (`stand_in`, `offline`). */
  advice: 'stand_in' | 'offline' | null;
  /** Who decided: the platform alone, the distributor's real-time decisioning, or its `onTimeout` fallback. */
  decidedBy?: DecidedBy;
  /**
   * An e-commerce payment that carried a 3-D Secure authentication value (CAVV): its ECI (`05`
   * authenticated) and whether the issuer verified it. Absent when the payment carried none.
   */
  threeDs?: { eci: string; verified: boolean };
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** The authorization record of the API (without internal fields). */
export function renderAuthorization(view: AuthorizationView): Omit<AuthorizationView, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = view;
  return rendered;
}
