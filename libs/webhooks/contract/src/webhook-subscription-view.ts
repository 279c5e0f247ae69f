import type { DisabledReason, LastVerification, WebhookSubscriptionStatus } from './webhook.types';

/**
 * A subscription as the API returns it, plus its owner (kept for tenant filtering, never rendered). The
 * signing secret is not part of it: this document is also the body of `webhookSubscription.*` Events.
 */
export interface WebhookSubscriptionView {
  id: string;
  distributorId: string;
  url: string;
  status: WebhookSubscriptionStatus;
  verifiedAt: string | null;
  lastVerification: LastVerification | null;
  disabledReason: DisabledReason | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

export function renderWebhookSubscription(
  view: WebhookSubscriptionView,
): Omit<WebhookSubscriptionView, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = view;
  return rendered;
}
