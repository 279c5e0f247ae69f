import { createHash } from 'node:crypto';
import type { CardFulfilmentOrder, FulfilmentProvider } from './fulfilment-provider.port';

/**
 * The sandbox's card bureau: it accepts every order and ships nothing by itself. Its shipping notice is
 * `POST /v1/simulate/cards/{id}/ship`, which records the shipment as a real provider's notice would. Its
 * order ids and tracking numbers are derived from the card id, so a repeated order or notice is the same.
 */
export class SandboxFulfilmentProvider implements FulfilmentProvider {
  readonly name = 'sandbox';

  async orderCard(order: CardFulfilmentOrder): Promise<{ orderId: string }> {
    return { orderId: `sbx-order-${digest(order.cardId).slice(0, 16)}` };
  }
}

/** The tracking number the sandbox carrier gives a card when the simulation names none. */
export const sandboxTrackingNumber = (cardId: string): string =>
  `SBX${digest(cardId).slice(0, 12).toUpperCase()}`;

const digest = (value: string) => createHash('sha256').update(value).digest('hex');
