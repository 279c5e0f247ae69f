import type { CardDeliveryType, CardTier, ShippingAddress, ShippingMethod } from '@cip/cards/contract';

// The physical-card value types the contract publishes; the domain speaks the same language.
export {
  CARD_DELIVERY_TYPES,
  CARD_REISSUE_REASONS,
  CARD_TIERS,
  REQUESTED_SHIPPING_METHOD,
  REVOKING_REISSUE_REASONS,
  SHIPPING_METHODS,
} from '@cip/cards/contract';
export type {
  CardDeliveryType,
  CardReissueReason,
  CardShipment,
  CardTier,
  ShippingAddress,
  ShippingMethod,
  ShipmentStatus,
} from '@cip/cards/contract';

/** What a physical card is printed and shipped with, fixed at its creation. */
export interface PhysicalCardDetails {
  tier: CardTier;
  deliveryType: CardDeliveryType;
  /** The address current at creation (spec part 3): later changes of the user's address do not move it. */
  shippingAddress: ShippingAddress;
  requestedShippingMethod: ShippingMethod;
}
