import type { UserStatus } from '@cip/users/contract';
import type { KycRecord } from './kyc.decider';
import {
  IDENTITY_KYC_TYPES,
  isCompleteIdentity,
  type PostalAddress,
  type UserNotActivatedReason,
} from './kyc.types';

// ---------------------------------------------------------------------------------------------------
// What approving a KYC does (spec part 1, fact 5; API-DECISIONS.md, "KYC"): a pure decision, applied by
// the service (the effects on the user first, then the outcome event).
// ---------------------------------------------------------------------------------------------------

/** What the policy needs to know of the KYC's user and program. */
export interface ApprovalFacts {
  user: { status: UserStatus; countryOfResidence: string };
  /** The program's allow-list (ISO 3166-1 alpha-2); it can change at short notice. */
  allowedCountries: readonly string[];
  /** Another identity KYC of the user was declined before (its decline blocks activation). */
  earlierIdentityKycDeclined: boolean;
}

export type ApprovalDecision =
  /** The KYC is declined instead: the user's country is outside the program. */
  | { outcome: 'decline'; declinedCode: 'prohibitedCountry' }
  | {
      outcome: 'approve';
      /** The user is active once the approval is applied (the `kyc.verified` field). */
      userActivated: boolean;
      userNotActivatedReason?: UserNotActivatedReason;
      /** Activate the user before recording the approval (an identity KYC of a user who may be). */
      activateUser: boolean;
      /** Set the user's shipping address first (a shipping KYC). */
      shippingAddress?: PostalAddress;
    };

const STATUS_REASONS: Partial<Record<UserStatus, UserNotActivatedReason>> = {
  frozen: 'userFrozen',
  disabled: 'userDisabled',
  revoked: 'userRevoked',
  deleted: 'userDeleted',
};

/**
 * Whether the approval depends on the user's earlier identity KYCs (so the service reads them only then):
 * an identity KYC of a user who is neither active nor blocked by its status.
 */
export const needsDeclineHistory = (kyc: Pick<KycRecord, 'type'>, userStatus: UserStatus): boolean =>
  IDENTITY_KYC_TYPES.includes(kyc.type) && userStatus !== 'active' && !STATUS_REASONS[userStatus];

/**
 * Approving a submitted KYC. A shipping KYC sets the user's shipping address; an RFI changes nothing on
 * the user; an identity KYC (full, light, import) declines with `prohibitedCountry` when the user's
 * country or the submitted address's is outside the program, and otherwise activates the user unless
 * the user is frozen, disabled, revoked or deleted, an earlier identity KYC was declined, or the
 * submitted identity is incomplete (`userNotActivatedReason`).
 */
export function approvalOf(kyc: KycRecord, facts: ApprovalFacts): ApprovalDecision {
  const active = facts.user.status === 'active';
  if (kyc.type === 'shipping') {
    if (kyc.submission?.kind !== 'shipping') throw new Error(`KYC ${kyc.kycId} has no shipping address`);
    return {
      outcome: 'approve',
      userActivated: active,
      activateUser: false,
      shippingAddress: kyc.submission.shippingAddress,
    };
  }
  if (!IDENTITY_KYC_TYPES.includes(kyc.type))
    return { outcome: 'approve', userActivated: active, activateUser: false };

  const identity = kyc.submission?.kind === 'identity' ? kyc.submission : null;
  const countries = [facts.user.countryOfResidence, identity?.address?.country].filter((c): c is string =>
    Boolean(c),
  );
  if (countries.some((country) => !facts.allowedCountries.includes(country.toUpperCase())))
    return { outcome: 'decline', declinedCode: 'prohibitedCountry' };

  const blocked =
    STATUS_REASONS[facts.user.status] ??
    (active
      ? null
      : facts.earlierIdentityKycDeclined
        ? 'previousKycDeclined'
        : !identity || !isCompleteIdentity(identity)
          ? 'incompleteDetails'
          : null);
  if (blocked)
    return { outcome: 'approve', userActivated: false, userNotActivatedReason: blocked, activateUser: false };
  return { outcome: 'approve', userActivated: true, activateUser: true };
}
