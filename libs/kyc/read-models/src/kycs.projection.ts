import { evolveKyc, isKyc, kycEvents } from '@cip/kyc/domain';
import type { ProjectedEvent, Projection, ReadDocument } from '@cip/shared/read-store';
import { kycStateOf, KycView, toKycView } from './kyc-view';

/** The `kycs` read model: one document per KYC stream, for lists and filters (userId, status, type). */
export const kycsProjection: Projection<KycView> = {
  name: 'kycs',
  collection: 'kycs',
  topics: ['kyc'],
  evolve(doc: KycView | null, event: ProjectedEvent): KycView | null {
    const state = evolveKyc(kycStateOf(doc), kycEvents.read(event));
    return isKyc(state) ? toKycView(state) : null;
  },
};

/**
 * The open links of hosted KYCs, for the expiry sweep. A document exists only while a KYC's link may be
 * used (pending); the sweep reads those past `expiresAt` through the store's expiry index
 * (`ReadStore.expiredBy`). Kept in the read store, so a restart loses no deadline.
 */
export interface KycLinkDeadline extends ReadDocument {
  expiresAt: string;
}

export const kycLinkDeadlinesProjection: Projection<KycLinkDeadline> = {
  name: 'kyc-link-deadlines',
  collection: 'kyc-link-deadlines',
  topics: ['kyc'],
  evolve(doc: KycLinkDeadline | null, recorded: ProjectedEvent): KycLinkDeadline | null {
    const event = kycEvents.read(recorded);
    switch (event.type) {
      case 'KycCreated': {
        const { kycId, expiresAt, createdAt } = event.data;
        return expiresAt ? { id: kycId, expiresAt, createdAt, updatedAt: createdAt } : null;
      }
      case 'KycResumed': {
        const { kycId, expiresAt, at } = event.data;
        return { id: kycId, expiresAt, createdAt: at, updatedAt: at };
      }
      case 'KycPending':
        return doc;
      default:
        // Completed, reviewed, failed, expired or revoked: the link no longer works, nothing to sweep.
        return null;
    }
  },
};
