import { Caller, DomainError, Environment, FindPage, FindResult, ownedBy } from '@cip/shared/contracts';
import type { PublicEventLog } from '@cip/events/contract';
import { CommandContext, EventStore, handleCommand, loadState, callerContext } from '@cip/shared/eventing';
import { forTenant, type ReadStore } from '@cip/shared/read-store';
import {
  AddressPolicy,
  Clock,
  newId,
  parseWebhookUrl,
  resolveDeliveryAddress,
  SecretBox,
  WebhookHttpClient,
  WebhookTransportError,
} from '@cip/shared/runtime';
import {
  isWebhookSubscription,
  webhookSubscriptionDecider,
  WebhookSubscriptionCommand,
  WebhookSubscriptionRecord,
  WebhookSubscriptionState,
} from '@cip/webhooks/domain';
import {
  toWebhookSubscriptionView,
  WEBHOOK_DELIVERIES,
  WebhookDelivery,
  WebhookSubscriptionView,
  webhookSubscriptionsProjection,
} from '@cip/webhooks/read-models';
import { randomBytes, randomUUID } from 'node:crypto';
import type { WebhookDispatcher } from './dispatch/webhook-dispatcher';
import type { SigningKey, SigningKeyRing } from './signing/signing-keys';
import { newSubscriptionSecret, signWebhook } from './signing/webhook-signature';
import type {
  DeliveryListFilter,
  PublicKeyResponse,
  PublicSigningKey,
  WebhooksApi,
  WebhookSigningKeysApi,
} from '@cip/webhooks/contract';

export interface WebhooksPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits until the subscriptions read model and the Event records include everything appended so far. */
  settle(environment: Environment): Promise<void>;
}

export interface WebhooksServiceDependencies {
  ports: WebhooksPorts;
  /** The public Events (the events contract): what redelivery sends again. */
  events: PublicEventLog;
  dispatcher: WebhookDispatcher;
  http: WebhookHttpClient;
  secrets: SecretBox;
  keys(environment: Environment): SigningKeyRing;
  addressPolicy: AddressPolicy;
  clock: Clock;
}

const publicKeyOf = (key: SigningKey): PublicSigningKey => ({
  algorithm: 'ed25519',
  publicKey: key.publicKey,
  pem: key.pem,
  keyId: key.keyId,
  createdAt: key.createdAt,
  ...(key.retiresAt ? { retiresAt: key.retiresAt } : {}),
});

/**
 * Webhook subscriptions: creation with the verification handshake (API-DECISIONS.md, "Webhooks"), url
 * changes that need verifying again, deletion, the public signing key, the delivery log and redelivery.
 * A distributor may hold several subscriptions per environment; each verified one receives every Event.
 */
export class WebhooksService implements WebhooksApi, WebhookSigningKeysApi {
  constructor(private readonly deps: WebhooksServiceDependencies) {}

  async createSubscription(caller: Caller, rawUrl: string) {
    const url = await this.vetUrl(rawUrl);
    const subscriptionId = newId('whs');
    const secret = newSubscriptionSecret();
    const context = this.context(caller);
    await handleCommand(
      this.store(caller),
      webhookSubscriptionDecider,
      subscriptionId,
      {
        type: 'CreateWebhookSubscription',
        data: {
          subscriptionId,
          distributorId: caller.distributorId,
          url,
          sealedSecret: this.deps.secrets.seal(secret),
          now: context.occurredAt,
        },
      },
      context,
      { expectNew: true },
    );
    const subscription = await this.verify(caller, subscriptionId, url, secret);
    return { subscription, secret };
  }

  async getSubscription(caller: Caller, subscriptionId: string): Promise<WebhookSubscriptionView> {
    return toWebhookSubscriptionView(await this.owned(caller, subscriptionId));
  }

  async listSubscriptions(
    caller: Caller,
    filter: { status?: string },
    page: FindPage,
  ): Promise<FindResult<WebhookSubscriptionView>> {
    await this.deps.ports.settle(caller.environment);
    return forTenant(this.deps.ports.readStore, caller).find<WebhookSubscriptionView>(
      webhookSubscriptionsProjection.collection,
      { status: filter.status || undefined },
      page,
    );
  }

  async changeUrl(caller: Caller, subscriptionId: string, rawUrl: string): Promise<WebhookSubscriptionView> {
    const current = await this.owned(caller, subscriptionId);
    const url = await this.vetUrl(rawUrl);
    const result = await this.command(caller, subscriptionId, (now) => ({
      type: 'ChangeWebhookUrl',
      data: { url, now },
    }));
    if (result.events.length === 0) return toWebhookSubscriptionView(current);
    return this.verify(caller, subscriptionId, url, this.deps.secrets.open(current.sealedSecret));
  }

  async deleteSubscription(caller: Caller, subscriptionId: string): Promise<void> {
    await this.command(caller, subscriptionId, (now) => ({
      type: 'DeleteWebhookSubscription',
      data: { now },
    }));
  }

  async verifySubscription(caller: Caller, subscriptionId: string): Promise<WebhookSubscriptionView> {
    const current = await this.owned(caller, subscriptionId);
    return this.verify(caller, subscriptionId, current.url, this.deps.secrets.open(current.sealedSecret));
  }

  async publicKey(caller: Caller): Promise<PublicKeyResponse> {
    return this.signingKeys(caller.environment);
  }

  async signingKeys(environment: Environment): Promise<PublicKeyResponse> {
    const ring = this.deps.keys(environment);
    return { ...publicKeyOf(ring.current()), keys: ring.signingKeys().map(publicKeyOf) };
  }

  async listDeliveries(
    caller: Caller,
    subscriptionId: string,
    filter: DeliveryListFilter,
    page: FindPage,
  ): Promise<FindResult<WebhookDelivery>> {
    await this.owned(caller, subscriptionId);
    return forTenant(this.deps.ports.readStore, caller).find<WebhookDelivery>(
      WEBHOOK_DELIVERIES,
      { subscriptionId, eventId: filter.eventId || undefined, status: filter.status || undefined },
      page,
    );
  }

  async redeliver(caller: Caller, eventId: string): Promise<WebhookDelivery[]> {
    await this.deps.ports.settle(caller.environment);
    const record = ownedBy(
      caller,
      await this.deps.events.findEvent(caller.environment, eventId),
      'Event',
      eventId,
    );
    const deliveries = await this.deps.dispatcher.redeliver(caller.environment, record);
    if (deliveries.length === 0) {
      throw new DomainError(
        'invalid_state_transition',
        'There is no verified webhook subscription to deliver to',
      );
    }
    return deliveries;
  }

  // -------------------------------------------------------------------------------------------------

  /** Runs the handshake on `url` and records its outcome; returns the subscription afterwards. */
  private async verify(
    caller: Caller,
    subscriptionId: string,
    url: string,
    secret: string,
  ): Promise<WebhookSubscriptionView> {
    const outcome = await this.handshake(caller.environment, url, secret);
    const result = await this.command(caller, subscriptionId, (now) => ({
      type: 'RecordVerification',
      data: { url, verified: outcome.verified, reason: outcome.reason, now },
    }));
    return toWebhookSubscriptionView(result.state as WebhookSubscriptionRecord);
  }

  /**
   * POSTs `{type: "webhookSubscription.verification", challenge}` (signed like a delivery); a 2xx answer
   * that echoes the challenge, as JSON `{challenge}` or as the bare text, verifies the url.
   */
  private async handshake(
    environment: Environment,
    url: string,
    secret: string,
  ): Promise<{ verified: boolean; reason?: string }> {
    const challenge = randomBytes(24).toString('base64url');
    const body = JSON.stringify({ type: 'webhookSubscription.verification', challenge });
    const headers = signWebhook({
      id: `verification-${randomUUID()}`,
      timestamp: this.deps.clock.now(),
      body,
      keys: this.deps.keys(environment).signingKeys(),
      secret,
    });
    try {
      const response = await this.deps.http.post(new URL(url), body, { ...headers });
      if (response.statusCode < 200 || response.statusCode >= 300) {
        return { verified: false, reason: `the url answered HTTP ${response.statusCode}` };
      }
      return echoes(response.body, challenge)
        ? { verified: true }
        : { verified: false, reason: 'the response did not echo the challenge' };
    } catch (error) {
      // What went wrong below HTTP stays here: a distributor (or someone probing through the handshake)
      // learns that the url could not be reached, not how (refused, reset, which address answered).
      if (error instanceof WebhookTransportError)
        return {
          verified: false,
          reason: error.kind === 'timeout' ? error.message : 'could not connect to the url',
        };
      throw error;
    }
  }

  private async vetUrl(raw: string): Promise<string> {
    const url = parseWebhookUrl(raw);
    await resolveDeliveryAddress(url.hostname, this.deps.addressPolicy);
    return url.toString();
  }

  private async owned(caller: Caller, subscriptionId: string): Promise<WebhookSubscriptionRecord> {
    const { state } = await loadState(this.store(caller), webhookSubscriptionDecider, subscriptionId);
    return subscriptionOf(caller, subscriptionId, state);
  }

  private command(
    caller: Caller,
    subscriptionId: string,
    build: (now: string) => WebhookSubscriptionCommand,
  ) {
    const context = this.context(caller);
    return handleCommand(
      this.store(caller),
      webhookSubscriptionDecider,
      subscriptionId,
      (state) => {
        subscriptionOf(caller, subscriptionId, state);
        return build(context.occurredAt);
      },
      context,
    );
  }

  private store(caller: Caller): EventStore {
    return this.deps.ports.eventStore(caller.environment);
  }

  private context(caller: Caller): CommandContext {
    return callerContext(this.deps.clock.now(), caller);
  }
}

/** The subscription if it exists, is not deleted and belongs to the caller; otherwise not found. */
function subscriptionOf(
  caller: Caller,
  subscriptionId: string,
  state: WebhookSubscriptionState,
): WebhookSubscriptionRecord {
  const live = isWebhookSubscription(state) && state.status !== 'deleted' ? state : null;
  return ownedBy(caller, live, 'Webhook subscription', subscriptionId);
}

function echoes(body: string, challenge: string): boolean {
  if (body.trim() === challenge) return true;
  try {
    return (JSON.parse(body) as { challenge?: unknown }).challenge === challenge;
  } catch {
    return false;
  }
}
