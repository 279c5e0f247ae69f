import type { PublicEventDraft, PublicEventMapper } from '@cip/shared/read-store';
import { webhookSubscriptionEvents } from '@cip/webhooks/domain';
import type { WebhookSubscriptionView } from './webhook-subscription-view';
import { webhookSubscriptionsProjection } from './webhook-subscriptions.projection';

/** Subscription domain events -> public `webhookSubscription.*` Events (spec part 6; no userId). */
export const webhookSubscriptionPublicEvents: PublicEventMapper<WebhookSubscriptionView> = {
  topic: 'whs',
  snapshot: webhookSubscriptionsProjection,
  toPublicEvents(recorded): PublicEventDraft[] {
    const event = webhookSubscriptionEvents.read(recorded);
    const eventTargetId = event.data.subscriptionId;
    switch (event.type) {
      case 'WebhookSubscriptionCreated':
        return [{ eventTargetId, eventName: 'webhookSubscription.created' }];
      case 'WebhookSubscriptionVerified':
        return [{ eventTargetId, eventName: 'webhookSubscription.verified' }];
      case 'WebhookSubscriptionUrlChanged':
        return [
          {
            eventTargetId,
            eventName: 'webhookSubscription.updated',
            fields: { previousUrl: event.data.previousUrl },
          },
        ];
      case 'WebhookSubscriptionDisabled':
        return [
          {
            eventTargetId,
            eventName: 'webhookSubscription.disabled',
            fields: { disabledReason: event.data.reason },
          },
        ];
      case 'WebhookSubscriptionDeleted':
        // The read model drops a deleted subscription, so the Event carries what identifies it.
        return [
          {
            eventTargetId,
            eventName: 'webhookSubscription.deleted',
            fields: { id: eventTargetId, url: event.data.url, status: 'deleted', updatedAt: event.data.at },
          },
        ];
      case 'WebhookSubscriptionVerificationFailed':
      case 'WebhookDeliveriesFailing':
      case 'WebhookDeliveriesRecovered':
        return [];
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
};
