import { WebhookSigningKeysController } from './signing-keys.controller';
import { EventRedeliveryController, WebhookSubscriptionsController } from './webhooks.controller';

export * from './webhooks.dto';

/**
 * The webhooks context's HTTP surface: the distributor API (subscriptions, signing keys, deliveries,
 * redelivery) and the public signing keys at a well-known URL.
 */
export const WEBHOOKS_CONTROLLERS = [
  WebhookSubscriptionsController,
  EventRedeliveryController,
  WebhookSigningKeysController,
];
