import type { Environment } from '@cip/shared/contracts';
import type { EventRecord, PublicEventLog } from '@cip/events/contract';
import { BusMessage, categoryOf, EventStore, handleCommand } from '@cip/shared/eventing';
import type { ReadStore } from '@cip/shared/read-store';
import { Clock, deterministicUuid, Logger, newId } from '@cip/shared/runtime';
import {
  failingGraceOver,
  webhookSubscriptionDecider,
  WebhookSubscriptionRecord,
} from '@cip/webhooks/domain';
import { EXPRESS_EVENT_NAMES, WEBHOOK_DELIVERIES, WebhookDelivery } from '@cip/webhooks/read-models';
import type { DeliveryEngine, DeliveryJob, EngineDependencies } from './delivery-engine';
import type { DirectoryEntry, SubscriptionDirectory } from './subscription-directory';

/** Consumer group of the dispatcher: its committed offset is the outbox's read position. */
export const DISPATCHER_GROUP = 'webhooks.dispatcher';

export interface DispatcherPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** The public Events recorded from the log (the events contract): the dispatcher's outbox. */
  events: PublicEventLog;
  /**
   * Waits until the public Event recorder and the subscriptions read model have read the log at least as
   * far as the dispatcher (they run beside it as their own consumer groups).
   */
  awaitPrerequisites(environment: Environment): Promise<void>;
  /**
   * Whether the dispatcher reads the scope's whole log in one order (the embedded bus), or topics read in no
   * order with each other (Kafka): then a distributor's Event may come before its new subscription's `whs`.
   */
  oneOrderedLog: boolean;
}

/** Log positions are spread so the Events recorded from one domain event keep their order. */
const SEQUENCE_SLOTS = 16;

/**
 * The webhook dispatcher. The event log is the outbox: the dispatcher is a consumer group over the same
 * topics as the public Event recorder and runs after it. For each domain event it reads, it looks up the
 * Event records the recorder produced from it (same eventId and body as GET /v1/events/{id}; nothing is
 * mapped a second time), writes one pending delivery per verified subscription of the Event's
 * distributor, and hands them to the engine. Only then does the batch settle and the group's offset
 * move, so a crash before that reads the batch again, and the deterministic delivery ids make the second
 * reading find the deliveries already written instead of creating them twice.
 */
export class WebhookDispatcher {
  readonly engine: DeliveryEngine;
  private readonly recovered = new Map<Environment, Promise<void>>();
  private readonly reporting = new Set<string>();

  /** `createEngine` gets the callback through which the engine reports outcomes back here. */
  constructor(
    private readonly ports: DispatcherPorts,
    private readonly directory: SubscriptionDirectory,
    createEngine: (reportOutcome: EngineDependencies['reportOutcome']) => DeliveryEngine,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.engine = createEngine((environment, entry, outcome, at) =>
      this.reportOutcome(environment, entry, outcome, at),
    );
  }

  /** Loads the subscriptions and the pending deliveries of an environment into the engine (once). */
  recover(environment: Environment): Promise<void> {
    let recovered = this.recovered.get(environment);
    if (!recovered) {
      recovered = (async () => {
        await this.directory.load(environment);
        const readStore = this.ports.readStore(environment);
        const pending: WebhookDelivery[] = [];
        for (let page = 0; ; page++) {
          const result = await readStore.find<WebhookDelivery>(WEBHOOK_DELIVERIES, {
            filter: { status: 'pending' },
            sort: { field: 'createdAt', direction: 'asc' },
            page,
            limit: 1000,
          });
          pending.push(...result.items);
          if (!result.hasMore) break;
        }
        pending.sort((a, b) => a.sequence - b.sequence);
        this.engine.enqueue(pending.map((delivery) => ({ environment, delivery })));
        if (pending.length)
          this.logger.info({ environment, pending: pending.length }, 'webhook deliveries resumed');
      })();
      this.recovered.set(environment, recovered);
    }
    return recovered;
  }

  /** Starts sending again (elected): `recover` loads the pending deliveries afresh. */
  resume(): void {
    this.engine.resume();
  }

  /**
   * Stops sending (deposed, or shutting down): what it had in hand stays pending in the delivery log, for the
   * next elected dispatcher to load (at least once: an attempt in flight now may be sent again by it).
   */
  async standDown(): Promise<void> {
    await this.engine.stop();
    this.recovered.clear();
  }

  /** Handles a batch of the log (the dispatcher's consumer group). */
  async handle(environment: Environment, messages: BusMessage[]): Promise<void> {
    await this.recover(environment);
    const readStore = this.ports.readStore(environment);
    const jobs: DeliveryJob[] = [];
    const active = new Map<string, DirectoryEntry[]>();
    let recorderCaughtUp = false;
    /** Owners without a subscription in the directory whose subscriptions were read again this batch. */
    const caughtUpOwners = new Set<string>();
    for (const { event } of messages) {
      if (categoryOf(event.streamId) === 'whs') {
        const entry = await this.directory.refresh(environment, event.streamId);
        if (entry?.subscription.status !== 'active') {
          this.engine.cancelSubscription(
            environment,
            event.streamId,
            'the subscription no longer receives deliveries',
          );
        }
        active.clear();
      }
      // Most distributors have no verified subscription most of the time: their events cost nothing here,
      // once the subscriptions read model has read this far and has none for the owner either (on Kafka a
      // subscription's `whs` events are another topic, read in no order with this one: the directory alone
      // could miss one verified just before, and its Events would never be sent).
      const owner = event.metadata.distributorId;
      const ownEvent = categoryOf(event.streamId) === 'whs';
      if (owner && !ownEvent && this.directory.activeFor(environment, owner).length === 0) {
        // One log read in order (the embedded bus): the directory has read every `whs` event before this one.
        if (this.ports.oneOrderedLog) continue;
        if (!recorderCaughtUp) {
          await this.ports.awaitPrerequisites(environment);
          recorderCaughtUp = true;
        }
        if (!caughtUpOwners.has(owner)) {
          caughtUpOwners.add(owner);
          await this.directory.catchUpDistributor(environment, owner);
        }
        if (this.directory.activeFor(environment, owner).length === 0) continue;
      }
      if (!recorderCaughtUp) {
        await this.ports.awaitPrerequisites(environment);
        recorderCaughtUp = true;
      }
      // The recorder has read this batch (awaitPrerequisites): no Event means the event produced none.
      const records = await this.ports.events.recordedFrom(environment, {
        eventId: event.metadata.eventId,
        position: event.position,
        occurredAt: event.metadata.occurredAt,
        distributorId: event.metadata.distributorId,
      });
      records.forEach((record, index) => {
        let subscriptions = active.get(record.distributorId);
        if (!subscriptions) {
          subscriptions = this.directory.activeFor(environment, record.distributorId);
          active.set(record.distributorId, subscriptions);
        }
        for (const entry of subscriptions) {
          // A subscription receives the Events that occurred while it was verified, whenever the
          // dispatcher reads them (the directory holds its latest state).
          if (record.createdAt < (entry.subscription.verifiedAt ?? record.createdAt)) continue;
          jobs.push(
            this.newJob(
              environment,
              entry.subscription,
              record,
              event.position * SEQUENCE_SLOTS + index,
              false,
            ),
          );
        }
      });
    }
    const fresh: DeliveryJob[] = [];
    for (const job of jobs) {
      if (!(await readStore.getVersioned(WEBHOOK_DELIVERIES, job.delivery.id))) fresh.push(job);
    }
    if (fresh.length === 0) return;
    await readStore.upsertMany(
      WEBHOOK_DELIVERIES,
      fresh.map((job) => ({ id: job.delivery.id, doc: job.delivery, version: 0 })),
    );
    this.engine.enqueue(fresh);
  }

  /** Sends an Event again to every verified subscription of its distributor; returns the new deliveries. */
  async redeliver(environment: Environment, record: EventRecord): Promise<WebhookDelivery[]> {
    await this.recover(environment);
    const jobs = this.directory
      .activeFor(environment, record.distributorId)
      .map((entry) => this.newJob(environment, entry.subscription, record, 0, true));
    if (jobs.length === 0) return [];
    await this.ports.readStore(environment).upsertMany(
      WEBHOOK_DELIVERIES,
      jobs.map((job) => ({ id: job.delivery.id, doc: job.delivery, version: 0 })),
    );
    this.engine.enqueue(jobs);
    return jobs.map((job) => job.delivery);
  }

  /**
   * Tells the subscription about a delivery outcome when it may change something: the first failure
   * starts the grace period, a success ends it, a failure after 3 days (or a 410) disables it. `now`: when
   * the outcome was known (the attempt's time in the delivery log).
   */
  async reportOutcome(
    environment: Environment,
    entry: DirectoryEntry,
    outcome: 'succeeded' | 'failed' | 'gone',
    now: Date = this.clock.now(),
  ): Promise<void> {
    const subscription = entry.subscription;
    if (subscription.status !== 'active') return;
    if (outcome === 'succeeded' && !subscription.failingSince) return;
    if (
      outcome === 'failed' &&
      subscription.failingSince &&
      !failingGraceOver(subscription.failingSince, now)
    ) {
      return;
    }
    // One report per subscription at a time; the others would decide nothing new.
    if (this.reporting.has(subscription.subscriptionId)) return;
    this.reporting.add(subscription.subscriptionId);
    try {
      const occurredAt = now.toISOString();
      const result = await handleCommand(
        this.ports.eventStore(environment),
        webhookSubscriptionDecider,
        subscription.subscriptionId,
        outcome === 'gone'
          ? { type: 'DisableWebhookSubscription', data: { reason: 'gone', now: occurredAt } }
          : { type: 'RecordDeliveryOutcome', data: { succeeded: outcome === 'succeeded', now: occurredAt } },
        {
          occurredAt,
          distributorId: subscription.distributorId,
          environment,
          correlationId: subscription.subscriptionId,
          causationId: 'webhook-delivery',
        },
      );
      const state = result.state as WebhookSubscriptionRecord;
      this.directory.update(environment, state);
      if (state.status !== 'active') {
        this.engine.cancelSubscription(
          environment,
          state.subscriptionId,
          `the subscription was disabled (${state.disabledReason})`,
        );
      }
    } finally {
      this.reporting.delete(subscription.subscriptionId);
    }
  }

  private newJob(
    environment: Environment,
    subscription: WebhookSubscriptionRecord,
    record: EventRecord,
    sequence: number,
    redelivery: boolean,
  ): DeliveryJob {
    const { subscriptionId } = subscription;
    const express = EXPRESS_EVENT_NAMES.includes(record.eventName);
    const id = redelivery ? newId('whd') : `whd-${deterministicUuid(subscriptionId, record.eventId)}`;
    const now = this.clock.now().toISOString();
    return {
      environment,
      delivery: {
        id,
        subscriptionId,
        distributorId: record.distributorId,
        eventId: record.eventId,
        eventName: record.eventName,
        userId: record.userId ?? null,
        status: 'pending',
        redelivery,
        eventCreatedAt: record.createdAt,
        sequence,
        lane: express ? 'express' : 'standard',
        queueKey:
          express || redelivery
            ? `${subscriptionId}|${id}`
            : `${subscriptionId}|${record.userId ?? record.eventTargetId}`,
        attempts: [],
        nextAttemptAt: null,
        createdAt: now,
        updatedAt: now,
      },
    };
  }
}
