import type { Environment } from '@cip/shared/contracts';
import type { FindQuery, FindResult } from '@cip/shared/read-store';
import type { WebhookDelivery, WebhookSubscriptionView } from '@cip/webhooks/read-models';

export interface WebhooksCaller {
  distributorId: string;
  environment: Environment;
  /** Request id: becomes the events' correlation id. */
  requestId: string;
}

export interface PublicSigningKey {
  algorithm: 'ed25519';
  /** Raw 32-byte Ed25519 public key, base64. */
  publicKey: string;
  keyId: string;
  createdAt: string;
  /** Set on a previous key still signing during a rotation's overlap. */
  retiresAt?: string;
}

/** The current signing key, plus every key whose `v1a` signature deliveries carry now. */
export interface PublicKeyResponse extends PublicSigningKey {
  keys: PublicSigningKey[];
}

export interface DeliveryListFilter {
  eventId?: string;
  status?: string;
}

/** What the gateway can ask of the webhooks context (bound in-process in the embedded runtime). */
export interface WebhooksApi {
  /** Creates and verifies a subscription; the secret is returned this once. */
  createSubscription(
    caller: WebhooksCaller,
    url: string,
  ): Promise<{ subscription: WebhookSubscriptionView; secret: string }>;
  getSubscription(caller: WebhooksCaller, subscriptionId: string): Promise<WebhookSubscriptionView>;
  listSubscriptions(
    caller: WebhooksCaller,
    filter: { status?: string },
    page: Omit<FindQuery, 'filter'>,
  ): Promise<FindResult<WebhookSubscriptionView>>;
  changeUrl(caller: WebhooksCaller, subscriptionId: string, url: string): Promise<WebhookSubscriptionView>;
  deleteSubscription(caller: WebhooksCaller, subscriptionId: string): Promise<void>;
  verifySubscription(caller: WebhooksCaller, subscriptionId: string): Promise<WebhookSubscriptionView>;
  publicKey(environment: Environment): PublicKeyResponse;
  listDeliveries(
    caller: WebhooksCaller,
    subscriptionId: string,
    filter: DeliveryListFilter,
    page: Omit<FindQuery, 'filter'>,
  ): Promise<FindResult<WebhookDelivery>>;
  redeliver(caller: WebhooksCaller, eventId: string): Promise<WebhookDelivery[]>;
}

export const WEBHOOKS_API = Symbol('WEBHOOKS_API');
