import type { KycView } from '@cip/kyc/contract';
import { KYC_LINK_LIFETIME_MS, KycRecord, KycState } from '@cip/kyc/domain';

export type { KycView };
export { renderKyc } from '@cip/kyc/contract';

export function toKycView(kyc: KycRecord): KycView {
  return {
    id: kyc.kycId,
    distributorId: kyc.distributorId,
    userId: kyc.userId,
    type: kyc.type,
    status: kyc.status,
    provider: kyc.provider,
    referenceId: kyc.referenceId,
    ...(kyc.rfiSubtype ? { rfiSubtype: kyc.rfiSubtype } : {}),
    ...(kyc.status === 'declined' && kyc.declinedCode ? { declinedCode: kyc.declinedCode } : {}),
    ...(kyc.status === 'verified' && kyc.userActivated !== null ? { userActivated: kyc.userActivated } : {}),
    ...(kyc.status === 'verified' && kyc.userNotActivatedReason
      ? { userNotActivatedReason: kyc.userNotActivatedReason }
      : {}),
    ...(kyc.expiresAt ? { linkExpiresAt: kyc.expiresAt } : {}),
    createdAt: kyc.createdAt,
    updatedAt: kyc.updatedAt,
  };
}

/** Back from the view to the decider's state, so projections fold with the domain's own evolve. */
export function kycStateOf(view: KycView | null): KycState {
  if (!view) return { status: 'absent' };
  return {
    status: view.status,
    kycId: view.id,
    userId: view.userId,
    distributorId: view.distributorId,
    type: view.type,
    rfiSubtype: view.rfiSubtype ?? null,
    provider: view.provider,
    referenceId: view.referenceId,
    expiresAt: view.linkExpiresAt ?? null,
    linkIssuedAt: view.linkExpiresAt
      ? new Date(Date.parse(view.linkExpiresAt) - KYC_LINK_LIFETIME_MS).toISOString()
      : null,
    submission: null,
    declinedCode: view.declinedCode ?? null,
    userActivated: view.userActivated ?? null,
    userNotActivatedReason: view.userNotActivatedReason ?? null,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
  };
}
