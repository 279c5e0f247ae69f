// ---------------------------------------------------------------------------------------------------
// Value types of the webhooks context, as the API and other contexts see them
// ---------------------------------------------------------------------------------------------------

export const WEBHOOK_SUBSCRIPTION_STATUSES = ['unverified', 'active', 'disabled', 'deleted'] as const;
export type WebhookSubscriptionStatus = (typeof WEBHOOK_SUBSCRIPTION_STATUSES)[number];

/** Why deliveries stopped: the endpoint answered 410 Gone, or it kept failing for the whole grace period. */
export type DisabledReason = 'gone' | 'failing';

export interface LastVerification {
  at: string;
  verified: boolean;
  reason: string | null;
}
