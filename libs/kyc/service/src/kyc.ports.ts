import type { Caller, Environment } from '@cip/shared/contracts';
import type { HostedKycType, KycType, PostalAddress } from '@cip/kyc/domain';

/**
 * Who a KYC command acts for when no program is involved (sagas, the expiry sweep, hosted pages): the
 * platform's Caller without its program.
 */
export type KycScope = Omit<Caller, 'program'>;

// ---------------------------------------------------------------------------------------------------
// The users context, as the KYC context needs it (implemented by the app over the users service)
// ---------------------------------------------------------------------------------------------------

export interface KycUserFacts {
  userId: string;
  status: 'onboarding' | 'unverified' | 'active' | 'frozen' | 'disabled' | 'revoked' | 'deleted';
  /** Null once the user's personal data was erased. */
  firstName: string | null;
  lastName: string | null;
  countryOfResidence: string;
}

export interface KycUserDirectory {
  /** The user, when it exists and belongs to the scope's distributor; null otherwise. */
  findUser(scope: KycScope, userId: string): Promise<KycUserFacts | null>;
  /**
   * Activates the user (nothing happens when it already is). `cause` (`kyc:<kycId>:<outcome>`) keys the
   * effect: once applied, the same cause changes nothing, even if the user's status changed since.
   */
  activateUser(scope: KycScope, userId: string, reason: string, cause: string): Promise<void>;
  /** Freezes the user (nothing happens when it already is), once per `cause` like `activateUser`. */
  freezeUser(scope: KycScope, userId: string, reason: string, cause: string): Promise<void>;
  /** Sets the address captured by a verified shipping KYC (`user.shippingAddressUpdated`). */
  setShippingAddress(scope: KycScope, userId: string, address: PostalAddress): Promise<void>;
}

export const KYC_USER_DIRECTORY = Symbol('KYC_USER_DIRECTORY');

/** The cause of a KYC outcome's effect on its user: the outcome of one KYC takes effect once. */
export const kycEffectCause = (kycId: string, outcome: 'verified' | 'declined' | 'expired'): string =>
  `kyc:${kycId}:${outcome}`;

// ---------------------------------------------------------------------------------------------------
// The identity-verification provider (a real vendor plugs in here; the sandbox provider is built in)
// ---------------------------------------------------------------------------------------------------

export interface VerificationSessionRequest {
  environment: Environment;
  kycId: string;
  type: HostedKycType | Extract<KycType, 'import'>;
}

export interface IdentityVerificationProvider {
  /** The provider's name, shown in the KYC's `provider` field. */
  readonly name: string;
  /** Opens a verification session at the provider (one per KYC, and a new one on each resume). */
  openSession(request: VerificationSessionRequest): Promise<{ referenceId: string }>;
  /** The link the user is sent to for the KYC's current session. */
  accessUrl(session: { environment: Environment; kycId: string; referenceId: string }): string;
}

export const IDENTITY_PROVIDER = Symbol('IDENTITY_PROVIDER');
