import type { DeclinedCode, KycStatus, KycType, RfiSubtype, UserNotActivatedReason } from './kyc.types';

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

/** The KYC record of the API: without internal fields, with the user's link while it works. */
export function renderKyc(view: KycView, accessUrl: string | null): Record<string, unknown> {
  const { distributorId: _distributorId, ...rendered } = view;
  return { ...rendered, access: accessUrl ? { url: accessUrl } : null };
}
