import type { CardDeliveryType, CardShipment, CardTier, ShippingAddress } from './card-shipping';
import type { CardBlock, CardStatus, CardType } from './card.types';

/**
 * A card as the API returns it, plus the owning distributor (kept for tenant filtering, never rendered).
 * What identifies the card number is only what is printed in clear anyway: the BIN, the last four digits
 * and the masked PAN. The PAN and the CVV2 stay in the card vault.
 */
/** A card's spending controls as the API shows them: limit amounts in USD (1 USD settles 1 USDC). */
export interface CardSpendingControls {
  limits: { amount: number; interval: string }[];
  blockedMccGroups: string[];
  blockedMccs: string[];
  allowedMccs: string[];
}

export interface CardView {
  id: string;
  distributorId: string;
  userId: string;
  walletId: string;
  type: CardType;
  status: CardStatus;
  bin: string;
  last4: string;
  /** The first six digits and the last four, the rest masked: `400000******1234`. */
  maskedPan: string;
  expMonth: number;
  expYear: number;
  /** The program's defaults until the distributor sets them. */
  spendingControls: CardSpendingControls;
  /** Physical cards only (null for virtual ones). */
  tier: CardTier | null;
  deliveryType: CardDeliveryType | null;
  /** Where a physical card ships: the address current at its creation (null once its user was erased). */
  shippingAddress: ShippingAddress | null;
  shipment: CardShipment | null;
  /** The card this one replaces (`POST /v1/cards/{id}/reissue`), else null. */
  replacesCardId: string | null;
  /**
   * What keeps the card from being unfrozen by its distributor (read-only): operator holds, the user's
   * freeze, the PIN/CVV2 block. Empty when nothing does.
   */
  blocks: CardBlock[];
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** The card record of the API (without internal fields). */
export function renderCard(view: CardView): Omit<CardView, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = view;
  return rendered;
}
