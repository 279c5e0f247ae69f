/**
 * Public Event records (spec part 6): the contract with distributors, separate from internal domain events
 * so the internal model can change without breaking integrations. Produced by per-context mappers.
 */
export const PUBLIC_EVENT_NAMES = [
  'user.created',
  'user.phoneNumberSet',
  'user.shippingAddressUpdated',
  'user.activated',
  'user.frozen',
  'user.disabled',
  'user.unverified',
  'user.revoked',
  'user.deleted',
  'kyc.created',
  'kyc.pending',
  'kyc.completed',
  'kyc.verified',
  'kyc.declined',
  'kyc.failed',
  'kyc.expired',
  'kyc.revoked',
  'wallet.created',
  'wallet.complianceHoldPlaced',
  'wallet.complianceHoldReleased',
  'balance.updated',
  'blockchainTransaction.confirmed',
  'withdrawal.confirmed',
  'withdrawal.rejected',
  'webhookSubscription.created',
  'webhookSubscription.verified',
  'webhookSubscription.updated',
  'webhookSubscription.disabled',
  'webhookSubscription.deleted',
  'card.created',
  'card.activated',
  'card.frozen',
  'card.unfrozen',
  'card.blocked',
  'card.unblocked',
  'card.revoked',
  'card.shipped',
  'card.trackingNumberUpdated',
  'card.spendingControlsUpdated',
  'cardAuthorization.confirmed',
  'cardAuthorization.approved',
  'cardAuthorization.rejected',
  'cardAuthorization.cleared',
  'cardAuthorization.reversed',
  'cardAuthorization.expired',
  'cardAuthentication.created',
  'cardAuthentication.accepted',
  'cardAuthentication.rejected',
  'cardAuthentication.expired',
  'cardTokenization.deliverActivationCode',
  'cardTokenization.activated',
] as const;

export type PublicEventName = (typeof PUBLIC_EVENT_NAMES)[number];

/** An Event as listed at GET /v1/events and delivered to webhook subscriptions. */
export interface PublicEvent {
  /** The Event's own id, a uuid (also `eventId`). */
  id: string;
  eventId: string;
  eventName: PublicEventName;
  /** Id of the related object (user, card, KYC, authorization, ...). */
  eventTargetId: string;
  /** Present on user events and everything associated with a user; absent on webhook-subscription events. */
  userId?: string;
  /** Snapshot of the changed entity after the occurrence, plus the event-specific fields of spec part 6. */
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}
