import { BeforeApplicationShutdown, Inject, Module, OnApplicationBootstrap } from '@nestjs/common';
import { ENVIRONMENTS, Environment } from '@cip/shared/contracts';
import { PUBLIC_EVENT_LOG, PublicEventLog } from '@cip/events/contract';
import {
  ConsumerHost,
  ElectedRole,
  Infrastructure,
  INFRASTRUCTURE,
  LOGGER,
  PUBLIC_EVENT_MAPPERS,
  Readiness,
} from '@cip/shared/infrastructure';
import type { PublicEventMapper } from '@cip/shared/read-store';
import {
  CLOCK,
  Clock,
  loadOrCreateSecret,
  Logger,
  METRICS,
  PlatformMetrics,
  SecretBox,
  systemResolver,
  WebhookHttpClient,
  type AddressPolicy,
  type Resolver,
} from '@cip/shared/runtime';
import { webhookSubscriptionsProjection } from '@cip/webhooks/read-models';
import { randomBytes } from 'node:crypto';
import { DeliveryEngine } from './dispatch/delivery-engine';
import { SubscriptionDirectory } from './dispatch/subscription-directory';
import { DISPATCHER_GROUP, WebhookDispatcher } from './dispatch/webhook-dispatcher';
import { WebhookMetrics } from './dispatch/webhook-metrics';
import { SigningKeyRing } from './signing/signing-keys';
import { WEBHOOK_SIGNING_KEYS_API, WEBHOOKS_API } from '@cip/webhooks/contract';
import { WebhooksService } from './webhooks.service';

/** What the app decides for the webhooks context (provided under WEBHOOKS_OPTIONS). */
export interface WebhooksModuleOptions {
  dataDir: string;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: loopback and private addresses allowed (local development, tests). */
  allowPrivateUrls: boolean;
  /** Ed25519 keys passed by the deployment (base64 PKCS#8); generated under DATA_DIR otherwise. */
  signingKeys?: Partial<Record<Environment, string>>;
  /** 32-byte key (base64) sealing subscription secrets at rest; generated under DATA_DIR otherwise. */
  secretsKey?: string;
  /** WEBHOOK_BREAKER_RESET_TIMEOUT_MS: how long an endpoint's open circuit stays open before one probe (real time). */
  breakerResetTimeoutMs: number;
  /** DNS resolution of webhook hosts (tests substitute it to simulate rebinding). */
  resolver?: Resolver;
  /**
   * The dispatcher's lease (default 5 s): one replica of the webhooks service dispatches, and a standby takes
   * over about this long after it died (at once after a graceful stop).
   */
  dispatcherLeaseMs?: number;
}

export const WEBHOOKS_OPTIONS = Symbol('WEBHOOKS_OPTIONS');
/** The read model that must have read the log before the dispatcher (and the API's lists) use it. */
const SUBSCRIPTIONS_GROUP = `projection.${webhookSubscriptionsProjection.name}`;
/** How long the dispatcher waits for the Event recorder and the subscriptions to catch up, at most. */
const PREREQUISITES_TIMEOUT_MS = 5_000;
const SETTLE_TIMEOUT_MS = 2_000;
/** How often retries that came due on the clock are looked for (and at once when the clock jumps). */
const RETRY_TICK_MS = 250;

/** The lease of the dispatcher: one holder among the replicas of the webhooks service. */
export const DISPATCHER_LEASE = 'webhooks.dispatcher';
const DEFAULT_DISPATCHER_LEASE_MS = 5_000;

/**
 * Runs the dispatcher (its consumer group, the pending deliveries and the retries) only while this process
 * holds the dispatcher's lease: a singleton among the replicas, elected, taken over by a standby when its
 * holder dies. Deposed, it stops the group and the engine; what was in hand stays pending for the next one
 * (at least once). Releases the lease on shutdown, after flushing the delivery log.
 */
class DispatcherElection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly role: ElectedRole;

  constructor(
    private readonly dispatcher: WebhookDispatcher,
    private readonly consumers: ConsumerHost,
    private readonly http: WebhookHttpClient,
    infrastructure: Infrastructure,
    options: WebhooksModuleOptions,
    readiness: Readiness,
    logger: Logger,
  ) {
    this.role = new ElectedRole({
      leases: infrastructure.leases,
      name: DISPATCHER_LEASE,
      ttlMs: options.dispatcherLeaseMs ?? DEFAULT_DISPATCHER_LEASE_MS,
      logger,
      onElected: async () => {
        this.dispatcher.resume();
        for (const environment of ENVIRONMENTS) await this.dispatcher.recover(environment);
        this.dispatcher.engine.startRetries(RETRY_TICK_MS);
        await this.consumers.startGroup(DISPATCHER_GROUP);
      },
      onDeposed: async () => {
        await this.consumers.stopGroup(DISPATCHER_GROUP);
        await this.dispatcher.standDown();
      },
    });
    // Both are ready: a standby serves the webhooks API and waits to take over.
    readiness.register('webhooks:dispatcher', () => ({
      ready: true,
      role: this.role.state,
      ...(this.role.term && { fencingToken: this.role.term.fencingToken }),
    }));
  }

  async onApplicationBootstrap(): Promise<void> {
    // Nothing is sent before the election (redeliveries asked of a standby wait, pending, for the leader).
    await this.dispatcher.standDown();
    await this.role.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.role.stop();
    await this.dispatcher.standDown();
    this.http.close();
  }
}

/**
 * The webhooks context: subscriptions (handshake, url vetting), the signing keys, and the dispatcher
 * (a consumer group of the log) with its delivery engine.
 */
@Module({
  providers: [
    {
      provide: WebhookHttpClient,
      inject: [WEBHOOKS_OPTIONS],
      useFactory: (options: WebhooksModuleOptions) =>
        new WebhookHttpClient({
          ...addressPolicy(options),
          timeoutMs: 10_000,
          maxResponseBytes: 64 * 1024,
          maxSocketsPerOrigin: 64,
        }),
    },
    {
      provide: SecretBox,
      inject: [WEBHOOKS_OPTIONS],
      useFactory: (options: WebhooksModuleOptions) =>
        new SecretBox(
          Buffer.from(
            loadOrCreateSecret({
              dataDir: options.dataDir,
              name: 'webhook-secrets-key',
              fromEnv: options.secretsKey,
              generate: () => randomBytes(32).toString('base64'),
            }),
            'base64',
          ),
        ),
    },
    {
      provide: SigningKeyRing,
      inject: [CLOCK, WEBHOOKS_OPTIONS],
      useFactory: (clock: Clock, options: WebhooksModuleOptions) => {
        const ring = (environment: Environment) =>
          new SigningKeyRing(
            { dataDir: options.dataDir, environment, fromEnv: options.signingKeys?.[environment] },
            clock,
          );
        const rings: Record<Environment, SigningKeyRing> = {
          sandbox: ring('sandbox'),
          production: ring('production'),
        };
        return (environment: Environment) => rings[environment];
      },
    },
    {
      provide: SubscriptionDirectory,
      inject: [INFRASTRUCTURE, SecretBox],
      useFactory: (infrastructure: Infrastructure, secrets: SecretBox) =>
        new SubscriptionDirectory(portsOf(infrastructure), secrets),
    },
    {
      provide: WebhookDispatcher,
      inject: [
        INFRASTRUCTURE,
        ConsumerHost,
        PUBLIC_EVENT_LOG,
        WEBHOOKS_OPTIONS,
        SubscriptionDirectory,
        WebhookHttpClient,
        SigningKeyRing,
        CLOCK,
        METRICS,
        LOGGER,
      ],
      useFactory: (
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        events: PublicEventLog,
        options: WebhooksModuleOptions,
        directory: SubscriptionDirectory,
        http: WebhookHttpClient,
        keys: (environment: Environment) => SigningKeyRing,
        clock: Clock,
        metrics: PlatformMetrics,
        logger: Logger,
      ) =>
        new WebhookDispatcher(
          {
            ...portsOf(infrastructure),
            events,
            oneOrderedLog: infrastructure.driver === 'embedded',
            awaitPrerequisites: async (environment) => {
              await Promise.all([
                events.caughtUp(environment, PREREQUISITES_TIMEOUT_MS),
                consumers.drain(environment, [SUBSCRIPTIONS_GROUP], PREREQUISITES_TIMEOUT_MS),
              ]);
            },
          },
          directory,
          (reportOutcome) =>
            new DeliveryEngine(
              {
                directory,
                http,
                keys,
                readStore: portsOf(infrastructure).readStore,
                events,
                reportOutcome,
                clock,
                metrics: new WebhookMetrics(metrics.registry),
                logger,
              },
              {
                concurrency: { express: 32, standard: 128 },
                breaker: {
                  resetTimeoutMs: options.breakerResetTimeoutMs,
                  volumeThreshold: 10,
                  errorThresholdPercentage: 50,
                },
              },
            ),
          clock,
          logger,
        ),
    },
    {
      provide: DeliveryEngine,
      inject: [WebhookDispatcher, METRICS],
      useFactory: (dispatcher: WebhookDispatcher, metrics: PlatformMetrics) => {
        // This process delivers the webhooks: its backlog is on /metrics and in its health report.
        metrics.webhookBacklogSource = {
          environments: ENVIRONMENTS,
          pending: (environment) => dispatcher.engine.backlogOf(environment as Environment),
        };
        return dispatcher.engine;
      },
    },
    {
      provide: WebhooksService,
      inject: [
        INFRASTRUCTURE,
        ConsumerHost,
        PUBLIC_EVENT_LOG,
        WEBHOOKS_OPTIONS,
        WebhookDispatcher,
        WebhookHttpClient,
        SecretBox,
        SigningKeyRing,
        CLOCK,
      ],
      useFactory: (
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        events: PublicEventLog,
        options: WebhooksModuleOptions,
        dispatcher: WebhookDispatcher,
        http: WebhookHttpClient,
        secrets: SecretBox,
        keys: (environment: Environment) => SigningKeyRing,
        clock: Clock,
      ) =>
        new WebhooksService({
          ports: {
            ...portsOf(infrastructure),
            // Read-your-writes, never failing: a late read model still answers, a little behind.
            settle: async (environment) => {
              await events.caughtUp(environment, SETTLE_TIMEOUT_MS).catch(() => undefined);
              await consumers.settle(environment, [SUBSCRIPTIONS_GROUP]);
            },
          },
          events,
          dispatcher,
          http,
          secrets,
          keys,
          addressPolicy: addressPolicy(options),
          clock,
        }),
    },
    { provide: WEBHOOKS_API, useExisting: WebhooksService },
    { provide: WEBHOOK_SIGNING_KEYS_API, useExisting: WebhooksService },
    {
      provide: DispatcherElection,
      inject: [
        WebhookDispatcher,
        ConsumerHost,
        WebhookHttpClient,
        INFRASTRUCTURE,
        WEBHOOKS_OPTIONS,
        Readiness,
        LOGGER,
      ],
      useFactory: (
        dispatcher: WebhookDispatcher,
        consumers: ConsumerHost,
        http: WebhookHttpClient,
        infrastructure: Infrastructure,
        options: WebhooksModuleOptions,
        readiness: Readiness,
        logger: Logger,
      ) => new DispatcherElection(dispatcher, consumers, http, infrastructure, options, readiness, logger),
    },
  ],
  exports: [WebhooksService, WEBHOOKS_API, WEBHOOK_SIGNING_KEYS_API, WebhookDispatcher, DeliveryEngine],
})
export class WebhooksModule {
  constructor(
    @Inject(ConsumerHost) consumers: ConsumerHost,
    @Inject(PUBLIC_EVENT_MAPPERS) mappers: PublicEventMapper[],
    @Inject(WebhookDispatcher) dispatcher: WebhookDispatcher,
  ) {
    // The dispatcher reads the topics of every context whose Events the process records, while elected.
    consumers.register({
      group: DISPATCHER_GROUP,
      elective: true,
      topics: [...new Set(mappers.map((mapper) => mapper.topic))],
      scopes: [...ENVIRONMENTS],
      handle: (ports, messages) => dispatcher.handle(ports.scope as Environment, messages),
    });
  }
}

const addressPolicy = (options: WebhooksModuleOptions): AddressPolicy => ({
  allowPrivate: options.allowPrivateUrls,
  resolver: options.resolver ?? systemResolver,
});

const portsOf = (infrastructure: Infrastructure) => ({
  eventStore: (environment: Environment) => infrastructure.scope(environment).eventStore,
  readStore: (environment: Environment) => infrastructure.scope(environment).readStore,
});
