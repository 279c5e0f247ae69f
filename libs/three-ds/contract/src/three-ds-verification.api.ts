import { defineContext, type Environment } from '@cip/shared/contracts';

/**
 * How long an authentication value (CAVV / AAV) the ACS issued may be used by an authorization: 30 days, the
 * window card schemes give an authentication before the authorization that follows it (a delayed shipment).
 */
export const AUTHENTICATION_VALUE_VALIDITY_DAYS = 30;

/** The ECIs of an authentication value: `05` authenticated, `06` attempted, `07` not authenticated. */
export const ECI = { authenticated: '05', attempted: '06', notAuthenticated: '07' } as const;

/**
 * What an authorization presents of the 3-D Secure authentication before it: the value and ECI the
 * network carried (DE-048 subelements 43 and 42), and the transaction's own facts, which the value's MAC
 * must have been computed over. `authorizationId` makes the check idempotent: a retry of the same
 * authorization verifies again, another authorization finds the value used.
 */
export interface AuthenticationValueCheck {
  cardId: string;
  authorizationId: string;
  /** Decimal text in `currency` (`"12.50"`, `"1500"` for JPY), as both contexts render amounts. */
  amount: string;
  /** ISO 4217 alphabetic. */
  currency: string;
  /** The card acceptor's name (DE-043 positions 1-25). */
  merchantName: string;
  value: string;
  eci: string;
}

/** Why a value did not verify (for operators; the network only hears a decline). */
export const AUTHENTICATION_VALUE_REFUSALS = [
  /** Not a value this ACS issued (tampered, invented, or of another environment). */
  'unknown',
  /** Issued, but not for this card, amount, currency or merchant. */
  'mismatch',
  /** Issued with another ECI. */
  'eci',
  /** Already used by another authorization (a value is single use). */
  'reused',
  /** Older than AUTHENTICATION_VALUE_VALIDITY_DAYS. */
  'expired',
] as const;
export type AuthenticationValueRefusal = (typeof AUTHENTICATION_VALUE_REFUSALS)[number];

export type AuthenticationValueVerdict =
  { verified: true; eci: string } | { verified: false; reason: AuthenticationValueRefusal };

/**
 * The issuer's check of an authentication value the ACS issued (a frictionless ARes `Y`, or the RReq of an
 * accepted challenge): its MAC under the environment's authentication value key, its age, and its single
 * use. A verified value is spent by the authorization that presented it. Never a PAN: the card id only.
 */
export interface ThreeDsVerificationApi {
  verifyAuthenticationValue(
    environment: Environment,
    check: AuthenticationValueCheck,
  ): Promise<AuthenticationValueVerdict>;
}

export const THREE_DS_VERIFICATION_API = Symbol('THREE_DS_VERIFICATION_API');

export const threeDsVerificationContract = defineContext<ThreeDsVerificationApi>({
  name: 'three-ds.verification',
  token: THREE_DS_VERIFICATION_API,
  methods: { verifyAuthenticationValue: ['environment', 'check'] },
});
