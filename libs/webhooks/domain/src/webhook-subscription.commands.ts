import type { DisabledReason } from './webhook-subscription.events';

// ---------------------------------------------------------------------------------------------------
// Commands of the webhook subscription decider. Time, ids and the sealed secret arrive in the command.
// ---------------------------------------------------------------------------------------------------

export interface CreateWebhookSubscription {
  type: 'CreateWebhookSubscription';
  data: { subscriptionId: string; distributorId: string; url: string; sealedSecret: string; now: string };
}

/** The outcome of a verification handshake against `url` (the url it was run on, which may be stale). */
export interface RecordVerification {
  type: 'RecordVerification';
  data: { url: string; verified: boolean; reason?: string; now: string };
}

export interface ChangeWebhookUrl {
  type: 'ChangeWebhookUrl';
  data: { url: string; now: string };
}

export interface DisableWebhookSubscription {
  type: 'DisableWebhookSubscription';
  data: { reason: DisabledReason; now: string };
}

export interface DeleteWebhookSubscription {
  type: 'DeleteWebhookSubscription';
  data: { now: string };
}

/** A delivery attempt's outcome, sent by the dispatcher only when it may change the failing state. */
export interface RecordDeliveryOutcome {
  type: 'RecordDeliveryOutcome';
  data: { succeeded: boolean; now: string };
}

export type WebhookSubscriptionCommand =
  | CreateWebhookSubscription
  | RecordVerification
  | ChangeWebhookUrl
  | DisableWebhookSubscription
  | DeleteWebhookSubscription
  | RecordDeliveryOutcome;
