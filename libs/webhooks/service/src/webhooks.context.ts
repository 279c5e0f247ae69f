import { webhookSigningKeysContract, webhooksContract } from '@cip/webhooks/contract';
import { WEBHOOKS_CONTROLLERS } from '@cip/webhooks/http';
import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { webhookSubscriptionPublicEvents, webhookSubscriptionsProjection } from '@cip/webhooks/read-models';
import { WebhooksModule } from './webhooks.module';

/** The webhooks context (subscriptions, signing keys, the dispatcher), as the platform registry lists it. */
export const webhooksContext: ContextDefinition = {
  name: 'webhooks',
  contracts: [webhooksContract, webhookSigningKeysContract],
  module: WebhooksModule,
  readModels: [projectionReadModel(webhookSubscriptionsProjection)],
  publicEvents: [webhookSubscriptionPublicEvents],
  sagas: [],
  controllers: WEBHOOKS_CONTROLLERS,
};
