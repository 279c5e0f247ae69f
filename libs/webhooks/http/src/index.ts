import { EventRedeliveryController, WebhookSubscriptionsController } from './webhooks.controller';

export * from './webhooks.dto';

/** The webhooks context's HTTP surface (distributor API): subscriptions, signing keys, deliveries, redelivery. */
export const WEBHOOKS_CONTROLLERS = [WebhookSubscriptionsController, EventRedeliveryController];
