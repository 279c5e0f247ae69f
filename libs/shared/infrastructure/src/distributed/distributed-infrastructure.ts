import { EventStoreDBClient } from '@eventstore/db-client';
import { PersonalDataEventStore, personalDataMasterKey, PersonalDataVault } from '@cip/shared/eventing';
import {
  EsdbEventStore,
  KafkaMessageBus,
  KafkaRelay,
  MongoPersonalDataKeyStore,
  RELAY_CHECKPOINT_STREAM,
} from '@cip/shared/eventing/distributed';
import { MongoIdempotencyStore, MongoLeases, MongoReadStore } from '@cip/shared/read-store/distributed';
import {
  type KafkaTransportOptions,
  openKafka,
  scopeBus,
  type ServerInfrastructure,
  startScopeRelays,
} from './kafka-transport';
import { PersonalDataOptions, STORE_SCOPES, ScopePorts, StoreScope } from '../infrastructure';

export interface DistributedInfrastructureOptions extends KafkaTransportOptions {
  /** EventStoreDB / KurrentDB connection string, e.g. `esdb://eventstore:2113?tls=false`. */
  eventStoreUrl: string;
  /** MongoDB connection string; each scope has its own database, `cip_<scope>`. */
  mongoUrl: string;
  /** The master key is required here (PERSONAL_DATA_MASTER_KEY): the orchestrator holds the secrets. */
  personalData: PersonalDataOptions & { masterKey: string };
}

export interface DistributedInfrastructure extends ServerInfrastructure {
  readonly driver: 'distributed';
}

interface DistributedScopePorts extends ScopePorts {
  readonly storedEventStore: EsdbEventStore;
  readonly bus: KafkaMessageBus;
}

/** Only the last checkpoint is ever read; EventStoreDB may scavenge the ones before. */
const RELAY_CHECKPOINTS_KEPT = 100;
/** Idempotency records outlive their expiry by this much before MongoDB's TTL monitor may delete them. */
const IDEMPOTENCY_TTL_GRACE_MS = 3_600_000;

/**
 * The distributed runtime's ports: one EventStoreDB, one Kafka cluster and one MongoDB server for every
 * scope, kept apart by the stream prefix `<scope>:`, the topic and group prefix `<scope>.` and the database
 * `cip_<scope>`. Processes that consume read Kafka; only the relay process (`startRelays`) tails the store.
 */
export async function openDistributedInfrastructure(
  options: DistributedInfrastructureOptions,
): Promise<DistributedInfrastructure> {
  const { logger, metrics } = options;
  // Loaded here rather than at the top: importing this library must not cost the embedded runtime the
  // best part of a second and tens of megabytes for a driver it never uses.
  const mongoose = (await import('mongoose')).default;
  const mongo = mongoose.createConnection(options.mongoUrl);
  await mongo.asPromise();
  const esdb = EventStoreDBClient.connectionString(options.eventStoreUrl);
  const kafka = openKafka(options);

  const masterKey = personalDataMasterKey(options.personalData.masterKey);
  const scopes = new Map<StoreScope, DistributedScopePorts>();
  for (const scope of STORE_SCOPES) {
    const storeName = `esdb:${scope}`;
    const db = mongo.useDb(`cip_${scope}`, { useCache: true });
    const storedEventStore = new EsdbEventStore({
      client: esdb,
      scopePrefix: scope,
      name: storeName,
      onAppended: (ms) => metrics?.appendDuration.observe({ store: storeName }, ms / 1000),
      onSubscriptionDropped: (error, attempt) =>
        logger?.warn({ err: error, attempt, store: storeName }, 'event store subscription dropped; resuming'),
    });
    const storedBus = scopeBus(kafka, scope, storedEventStore, options);
    const personalData = new PersonalDataVault(
      new MongoPersonalDataKeyStore(db),
      masterKey,
      options.personalData.policies,
    );
    scopes.set(scope, {
      scope,
      eventStore: new PersonalDataEventStore(storedEventStore, personalData),
      storedEventStore,
      personalData,
      bus: storedBus,
      readStore: new MongoReadStore(db),
      // A claim whose gateway died without its outcome runs again only if its command appended nothing.
      idempotency: new MongoIdempotencyStore(db, {
        ttlGraceMs: IDEMPOTENCY_TTL_GRACE_MS,
        commandRan: (correlationId) => storedEventStore.hasEventsCorrelatedWith(correlationId),
      }),
    });
  }

  const relays: KafkaRelay[] = [];
  let closed = false;
  return {
    driver: 'distributed',
    leases: new MongoLeases(mongo.useDb('cip_control', { useCache: true })),
    scope: (scope) => {
      const ports = scopes.get(scope);
      if (!ports) throw new Error(`Unknown store scope ${scope}`);
      return ports;
    },
    startRelays: async () => {
      if (closed) throw new Error('The infrastructure is closed');
      if (relays.length) throw new Error('The relays are already started');
      // The index the idempotency stores ask about a claim whose gateway died (`hasEventsCorrelatedWith`):
      // one per server, enabled by the deployment's one relay. Without it those retries answer 503.
      await scopes
        .get('control')
        ?.storedEventStore.enableCorrelationIndex()
        .catch((error: unknown) =>
          logger?.error(
            { err: error },
            'could not enable the $by_correlation_id projection (EventStoreDB needs --run-projections=System)',
          ),
        );
      for (const ports of scopes.values()) {
        await ports.storedEventStore.setMaxCount(RELAY_CHECKPOINT_STREAM, RELAY_CHECKPOINTS_KEPT);
      }
      relays.push(...(await startScopeRelays([...scopes.values()], logger)));
      return [...relays];
    },
    close: async () => {
      if (closed) return;
      closed = true;
      // Relays first (they produce to the buses), then consumers and producers, then the connections.
      for (const relay of relays) await relay.stop();
      for (const ports of scopes.values()) {
        await ports.bus.close();
        await ports.eventStore.close();
      }
      await esdb.dispose();
      await mongo.close();
    },
  };
}
