import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { webhookSubscriptionPublicEvents, webhookSubscriptionsProjection } from '@cip/webhooks/read-models';
import { WebhooksModule } from './webhooks.module';

/** The webhooks context (subscriptions, signing keys, the dispatcher), as the platform registry lists it. */
export const webhooksContext: ContextDefinition = {
  name: 'webhooks',
  contracts: [],
  module: WebhooksModule,
  readModels: [projectionReadModel(webhookSubscriptionsProjection)],
  publicEvents: [webhookSubscriptionPublicEvents],
  sagas: [],
  // Still mounted by the gateway lib until they move into libs/webhooks/http (with the webhooks contract).
  controllers: [],
};
