import type { ShippingAddress } from '@cip/users/contract';

// ---------------------------------------------------------------------------------------------------
// Physical cards: what is printed, how it travels, and why a card is replaced (spec part 3 "Card",
// API-DECISIONS "Cards"). Names follow Stripe Issuing where the spec only shows one value.
// ---------------------------------------------------------------------------------------------------

/** The card stock printed (the spec shows `standard`). */
export const CARD_TIERS = ['standard'] as const;
export type CardTier = (typeof CARD_TIERS)[number];

/** Where the card travels (the spec shows `ship_to_user`: to the user's shipping address). */
export const CARD_DELIVERY_TYPES = ['ship_to_user'] as const;
export type CardDeliveryType = (typeof CARD_DELIVERY_TYPES)[number];

/** Stripe Issuing's shipping services; a card is requested `standard` and may travel faster. */
export const SHIPPING_METHODS = ['standard', 'express', 'priority'] as const;
export type ShippingMethod = (typeof SHIPPING_METHODS)[number];

/** The shipping method every physical card is requested with (the create request has none). */
export const REQUESTED_SHIPPING_METHOD: ShippingMethod = 'standard';

/**
 * A physical card's shipment: `pending` until the fulfilment provider accepted the order, `submitted`
 * while it is printed and packed, `shipped` once dispatched (Stripe Issuing's names).
 */
export const SHIPMENT_STATUSES = ['pending', 'submitted', 'shipped'] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

export interface CardShipment {
  status: ShipmentStatus;
  /** Null until the carrier assigned one; it may change while the card travels. */
  trackingNumber: string | null;
  requestedShippingMethod: ShippingMethod;
  /** The method the carrier actually used; null until shipped. */
  actualShippingMethod: ShippingMethod | null;
  shippedAt: string | null;
}

/**
 * Why a card is reissued (`POST /v1/cards/{id}/reissue`, as Lithic and Stripe): `lost` and `stolen`
 * revoke the old card at once; `damaged` and `expired` keep it working until the new one is active.
 */
export const CARD_REISSUE_REASONS = ['lost', 'stolen', 'damaged', 'expired'] as const;
export type CardReissueReason = (typeof CARD_REISSUE_REASONS)[number];

/** The reasons that stop the old card as soon as the reissue is asked for. */
export const REVOKING_REISSUE_REASONS: readonly CardReissueReason[] = ['lost', 'stolen'];

export type { ShippingAddress };
