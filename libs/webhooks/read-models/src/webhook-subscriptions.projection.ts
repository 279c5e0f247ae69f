import type { ProjectedEvent, Projection } from '@cip/shared/read-store';
import {
  evolveWebhookSubscription,
  isWebhookSubscription,
  webhookSubscriptionEvents,
  WebhookSubscriptionState,
} from '@cip/webhooks/domain';
import { toWebhookSubscriptionView, WebhookSubscriptionView } from './webhook-subscription-view';

/**
 * The view does not keep the sealed secret, so folding starts from the stored view with an empty one; the
 * secret is read from the stream by the services that sign.
 */
function toState(view: WebhookSubscriptionView | null): WebhookSubscriptionState {
  if (!view) return { status: 'absent' };
  const { id, ...rest } = view;
  return { ...rest, subscriptionId: id, sealedSecret: '' };
}

/** The `webhook_subscriptions` read model (lists); a deleted subscription leaves it. */
export const webhookSubscriptionsProjection: Projection<WebhookSubscriptionView> = {
  name: 'webhook-subscriptions',
  collection: 'webhook_subscriptions',
  topics: ['whs'],
  evolve(doc: WebhookSubscriptionView | null, event: ProjectedEvent): WebhookSubscriptionView | null {
    const state = evolveWebhookSubscription(toState(doc), webhookSubscriptionEvents.read(event));
    return isWebhookSubscription(state) && state.status !== 'deleted'
      ? toWebhookSubscriptionView(state)
      : null;
  },
};
