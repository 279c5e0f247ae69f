import type { CardTier, ShippingAddress, ShippingMethod } from '@cip/cards/contract';
import type { Environment } from '@cip/shared/contracts';

/** A print-and-ship order for one physical card. */
export interface CardFulfilmentOrder {
  environment: Environment;
  cardId: string;
  /**
   * The card's vault reference: a real card bureau is given the number to emboss by the vault (a
   * PCI-scoped export to the bureau), never through this order.
   */
  vaultRef: string;
  last4: string;
  expMonth: number;
  expYear: number;
  tier: CardTier;
  shippingAddress: ShippingAddress;
  shippingMethod: ShippingMethod;
}

/**
 * The card bureau that prints physical cards and ships them (Lithic and Stripe use one behind the same
 * two steps): the cards context orders each card once it is recorded (the card-fulfilment saga), and the
 * provider's shipping notices come back as `RecordShipment` commands. `orderCard` must be idempotent by
 * card id: the saga may order the same card again after a crash, and must get the same order.
 */
export interface FulfilmentProvider {
  /** Names the provider in the card's events. */
  readonly name: string;
  orderCard(order: CardFulfilmentOrder): Promise<{ orderId: string }>;
}
