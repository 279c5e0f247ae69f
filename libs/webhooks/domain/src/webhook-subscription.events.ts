import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// Events of a webhook subscription stream (`whs-<uuid>`).
// ---------------------------------------------------------------------------------------------------

import type { DisabledReason } from '@cip/webhooks/contract';

export type { DisabledReason };

export type WebhookSubscriptionCreated = DomainEvent<
  'WebhookSubscriptionCreated',
  {
    subscriptionId: string;
    distributorId: string;
    url: string;
    /** The signing secret (`whsec_...`) sealed with the platform's secrets key; never stored in clear. */
    sealedSecret: string;
    createdAt: string;
  }
>;

export type WebhookSubscriptionVerified = DomainEvent<
  'WebhookSubscriptionVerified',
  { subscriptionId: string; url: string; at: string }
>;

/** A handshake that did not prove the url; changes nothing but the last verification outcome. */
export type WebhookSubscriptionVerificationFailed = DomainEvent<
  'WebhookSubscriptionVerificationFailed',
  { subscriptionId: string; url: string; reason: string; at: string }
>;

export type WebhookSubscriptionUrlChanged = DomainEvent<
  'WebhookSubscriptionUrlChanged',
  { subscriptionId: string; url: string; previousUrl: string; at: string }
>;

export type WebhookSubscriptionDisabled = DomainEvent<
  'WebhookSubscriptionDisabled',
  { subscriptionId: string; reason: DisabledReason; at: string }
>;

export type WebhookSubscriptionDeleted = DomainEvent<
  'WebhookSubscriptionDeleted',
  { subscriptionId: string; url: string; at: string }
>;

/** First failed delivery after a success (or ever): the start of the grace period before disabling. */
export type WebhookDeliveriesFailing = DomainEvent<
  'WebhookDeliveriesFailing',
  { subscriptionId: string; since: string }
>;

export type WebhookDeliveriesRecovered = DomainEvent<
  'WebhookDeliveriesRecovered',
  { subscriptionId: string; at: string }
>;

export type WebhookSubscriptionEvent =
  | WebhookSubscriptionCreated
  | WebhookSubscriptionVerified
  | WebhookSubscriptionVerificationFailed
  | WebhookSubscriptionUrlChanged
  | WebhookSubscriptionDisabled
  | WebhookSubscriptionDeleted
  | WebhookDeliveriesFailing
  | WebhookDeliveriesRecovered;

/** How webhook subscription streams are read (no upcaster yet: every event is still in its first shape). */
export const webhookSubscriptionEvents = domainEventReader<WebhookSubscriptionEvent>();
