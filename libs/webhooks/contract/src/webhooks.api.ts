import { Caller, defineContext, type FindPage, type FindResult } from '@cip/shared/contracts';
import type { WebhookDelivery } from './webhook-delivery';
import type { WebhookSubscriptionView } from './webhook-subscription-view';

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

/** What a distributor can do with its webhook subscriptions and deliveries. */
export interface WebhooksApi {
  /** Creates and verifies a subscription; the secret is returned this once. */
  createSubscription(
    caller: Caller,
    url: string,
  ): Promise<{ subscription: WebhookSubscriptionView; secret: string }>;
  getSubscription(caller: Caller, subscriptionId: string): Promise<WebhookSubscriptionView>;
  listSubscriptions(
    caller: Caller,
    filter: { status?: string },
    page: FindPage,
  ): Promise<FindResult<WebhookSubscriptionView>>;
  changeUrl(caller: Caller, subscriptionId: string, url: string): Promise<WebhookSubscriptionView>;
  deleteSubscription(caller: Caller, subscriptionId: string): Promise<void>;
  verifySubscription(caller: Caller, subscriptionId: string): Promise<WebhookSubscriptionView>;
  /** The keys that sign the caller's environment's deliveries. */
  publicKey(caller: Caller): Promise<PublicKeyResponse>;
  listDeliveries(
    caller: Caller,
    subscriptionId: string,
    filter: DeliveryListFilter,
    page: FindPage,
  ): Promise<FindResult<WebhookDelivery>>;
  redeliver(caller: Caller, eventId: string): Promise<WebhookDelivery[]>;
}

export const WEBHOOKS_API = Symbol('WEBHOOKS_API');

export const webhooksContract = defineContext<WebhooksApi>({
  name: 'webhooks',
  token: WEBHOOKS_API,
  methods: {
    createSubscription: ['caller', 'url'],
    getSubscription: ['caller', 'subscriptionId'],
    listSubscriptions: ['caller', 'filter', 'page'],
    changeUrl: ['caller', 'subscriptionId', 'url'],
    deleteSubscription: ['caller', 'subscriptionId'],
    verifySubscription: ['caller', 'subscriptionId'],
    publicKey: ['caller'],
    listDeliveries: ['caller', 'subscriptionId', 'filter', 'page'],
    redeliver: ['caller', 'eventId'],
  },
});
