import type { WebhookSubscriptionView } from '@cip/webhooks/contract';
import type { WebhookSubscriptionRecord } from '@cip/webhooks/domain';

export type { WebhookSubscriptionView };
export { renderWebhookSubscription } from '@cip/webhooks/contract';

export function toWebhookSubscriptionView(record: WebhookSubscriptionRecord): WebhookSubscriptionView {
  return {
    id: record.subscriptionId,
    distributorId: record.distributorId,
    url: record.url,
    status: record.status,
    verifiedAt: record.verifiedAt,
    lastVerification: record.lastVerification,
    disabledReason: record.disabledReason,
    failingSince: record.failingSince,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
