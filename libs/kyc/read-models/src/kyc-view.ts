import {
  DeclinedCode,
  KYC_LINK_LIFETIME_MS,
  KycRecord,
  KycState,
  KycStatus,
  KycType,
  RfiSubtype,
  UserNotActivatedReason,
} from '@cip/kyc/domain';

/**
 * A KYC as the API returns it and as its Events carry it, plus the owning distributor (kept for tenant
 * filtering, never rendered). Fields that do not apply are absent rather than null (spec part 6:
 * `rfiSubtype` only on an rfi, `declinedCode` only when declined). The data the user submitted is not
 * part of it: it stays in the KYC's stream.
 */
export interface KycView {
  id: string;
  distributorId: string;
  userId: string;
  type: KycType;
  status: KycStatus;
  provider: string;
  referenceId: string;
  rfiSubtype?: RfiSubtype;
  declinedCode?: DeclinedCode;
  userActivated?: boolean;
  userNotActivatedReason?: UserNotActivatedReason;
  /** When the current link stops working (hosted KYCs only). */
  linkExpiresAt?: string;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

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

/** The KYC record of the API: without internal fields, with the user's link while it works. */
export function renderKyc(view: KycView, accessUrl: string | null): Record<string, unknown> {
  const { distributorId: _distributorId, ...rendered } = view;
  return { ...rendered, access: accessUrl ? { url: accessUrl } : null };
}
