import type { Environment } from '@cip/shared/contracts';
import { EventStore, loadState } from '@cip/shared/eventing';
import type { ReadStore } from '@cip/shared/read-store';
import {
  isWebhookSubscription,
  webhookSubscriptionDecider,
  WebhookSubscriptionRecord,
} from '@cip/webhooks/domain';
import { WebhookSubscriptionView, webhookSubscriptionsProjection } from '@cip/webhooks/read-models';
import type { SecretBox } from '@cip/shared/runtime';

/** A subscription as the dispatcher needs it: its state from the stream and its secret in clear. */
export interface DirectoryEntry {
  subscription: WebhookSubscriptionRecord;
  url: URL;
  secret: string;
}

export interface DirectoryPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
}

/**
 * The dispatcher's in-memory directory of subscriptions, per environment. Loaded once from the read model
 * and the streams (which hold the sealed secrets), then kept current by the dispatcher: every `whs` event
 * it reads from the log makes it reload that one stream.
 */
export class SubscriptionDirectory {
  private readonly entries = new Map<Environment, Map<string, DirectoryEntry>>();
  private readonly loading = new Map<Environment, Promise<void>>();

  constructor(
    private readonly ports: DirectoryPorts,
    private readonly secrets: SecretBox,
  ) {}

  load(environment: Environment): Promise<void> {
    let loading = this.loading.get(environment);
    if (!loading) {
      loading = (async () => {
        const views = await this.ports
          .readStore(environment)
          .all<WebhookSubscriptionView>(webhookSubscriptionsProjection.collection);
        this.entries.set(environment, new Map());
        for (const view of views) await this.refresh(environment, view.id);
      })();
      this.loading.set(environment, loading);
    }
    return loading;
  }

  /**
   * Reads the subscriptions of a distributor the directory does not hold from the read model (and their
   * streams): on Kafka the dispatcher may read a distributor's Event before the `whs` event of a subscription
   * verified just before it (another topic, no order across them). Call it once the subscriptions read model
   * has read the log as far as the event (the dispatcher's prerequisites).
   */
  async catchUpDistributor(environment: Environment, distributorId: string): Promise<void> {
    const entries = this.scope(environment);
    for (let page = 0; ; page++) {
      const found = await this.ports
        .readStore(environment)
        .find<WebhookSubscriptionView>(webhookSubscriptionsProjection.collection, {
          filter: { distributorId },
          sort: { field: 'createdAt', direction: 'asc' },
          page,
          limit: 100,
        });
      for (const view of found.items) if (!entries.has(view.id)) await this.refresh(environment, view.id);
      if (!found.hasMore) return;
    }
  }

  /** Reloads one subscription from its stream; returns it, or null when it is gone (deleted). */
  async refresh(environment: Environment, subscriptionId: string): Promise<DirectoryEntry | null> {
    const { state } = await loadState(
      this.ports.eventStore(environment),
      webhookSubscriptionDecider,
      subscriptionId,
    );
    const entries = this.scope(environment);
    if (!isWebhookSubscription(state) || state.status === 'deleted') {
      entries.delete(subscriptionId);
      return null;
    }
    const previous = entries.get(subscriptionId);
    const entry: DirectoryEntry = {
      subscription: state,
      url: previous?.subscription.url === state.url ? previous.url : new URL(state.url),
      secret: previous?.secret ?? this.secrets.open(state.sealedSecret),
    };
    entries.set(subscriptionId, entry);
    return entry;
  }

  /** Replaces the cached state after the dispatcher changed it itself (failing, recovered, disabled). */
  update(environment: Environment, subscription: WebhookSubscriptionRecord): void {
    const entry = this.scope(environment).get(subscription.subscriptionId);
    if (entry) entry.subscription = subscription;
  }

  get(environment: Environment, subscriptionId: string): DirectoryEntry | null {
    return this.scope(environment).get(subscriptionId) ?? null;
  }

  /** The verified subscriptions of a distributor: the ones that receive its Events. */
  activeFor(environment: Environment, distributorId: string): DirectoryEntry[] {
    const active: DirectoryEntry[] = [];
    for (const entry of this.scope(environment).values()) {
      if (entry.subscription.distributorId === distributorId && entry.subscription.status === 'active')
        active.push(entry);
    }
    return active;
  }

  private scope(environment: Environment): Map<string, DirectoryEntry> {
    let entries = this.entries.get(environment);
    if (!entries) {
      entries = new Map();
      this.entries.set(environment, entries);
    }
    return entries;
  }
}
