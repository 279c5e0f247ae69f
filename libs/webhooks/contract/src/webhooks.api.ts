import {
  Caller,
  defineContext,
  type Environment,
  type FindPage,
  type FindResult,
} from '@cip/shared/contracts';
import type { WebhookDelivery } from './webhook-delivery';
import type { WebhookSubscriptionView } from './webhook-subscription-view';

export interface PublicSigningKey {
  algorithm: 'ed25519';
  /** Raw 32-byte Ed25519 public key, base64. */
  publicKey: string;
  /** The same key as a PEM (SPKI) document: `crypto.verify(null, content, pem, signature)` takes it as is. */
  pem: string;
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

/** A JSON Web Key Set (RFC 7517) of Ed25519 keys (RFC 8037). */
export interface SigningKeySet {
  keys: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' }[];
}

/**
 * The public side of the signing keys, for anyone (receivers verifying without an API key): the keys of one
 * environment, not of a distributor, since one key ring signs every distributor's deliveries.
 */
export interface WebhookSigningKeysApi {
  signingKeys(environment: Environment): Promise<PublicKeyResponse>;
}

export const WEBHOOK_SIGNING_KEYS_API = Symbol('WEBHOOK_SIGNING_KEYS_API');

export const webhookSigningKeysContract = defineContext<WebhookSigningKeysApi>({
  name: 'webhooks.signingKeys',
  token: WEBHOOK_SIGNING_KEYS_API,
  methods: { signingKeys: ['environment'] },
});

/** The key set of a public-key response (what `/.well-known/webhook-signing-keys/{environment}/jwks.json` serves). */
export function toSigningKeySet(response: PublicKeyResponse): SigningKeySet {
  return {
    keys: response.keys.map((key) => ({
      kty: 'OKP',
      crv: 'Ed25519',
      x: Buffer.from(key.publicKey, 'base64').toString('base64url'),
      kid: key.keyId,
      alg: 'EdDSA',
      use: 'sig',
    })),
  };
}
