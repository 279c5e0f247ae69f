import { PersonalDataEventStore, personalDataMasterKey, PersonalDataVault } from '@cip/shared/eventing';
import {
  KafkaMessageBus,
  KafkaRelay,
  PostgresEventStore,
  PostgresPersonalDataKeyStore,
} from '@cip/shared/eventing/distributed';
import {
  ensurePostgresSchema,
  openPostgresPool,
  PostgresIdempotencyStore,
  PostgresLeases,
  PostgresReadStore,
} from '@cip/shared/read-store/distributed';
import type { Logger, PlatformMetrics } from '@cip/shared/runtime';
import type { Pool } from 'pg';
import {
  type KafkaTransportOptions,
  openKafka,
  scopeBus,
  type ServerInfrastructure,
  startScopeRelays,
} from '../distributed/kafka-transport';
import { PersonalDataOptions, STORE_SCOPES, ScopePorts, StoreScope } from '../infrastructure';

export interface PostgresInfrastructureOptions extends KafkaTransportOptions {
  /** DATABASE_URL: the scopes' logs, read models and idempotency records, one schema each (`cip_<scope>`). */
  databaseUrl: string;
  /**
   * PERSONAL_DATA_DATABASE_URL: where the scopes' personal-data keys are kept (schema `cip_<scope>`, a pool of
   * one connection per scope). Give a database of their own so that a copy or backup of the log never
   * carries the keys that open it; by default they are in the scope's schema beside the log.
   */
  personalDataDatabaseUrl?: string;
  /**
   * DATABASE_POOL_SIZE: connections of each scope's pool (default 2). A process opens one pool per scope
   * (three) and one LISTEN connection per subscribed scope (the relay): the sum over the topology must stay
   * under the server's max_connections (docs/STACK-NOTES.md counts it).
   */
  poolSize?: number;
  logger?: Logger;
  metrics?: PlatformMetrics;
  /** The master key is required here (PERSONAL_DATA_MASTER_KEY): the orchestrator holds the secrets. */
  personalData: PersonalDataOptions & { masterKey: string };
}

export interface PostgresInfrastructure extends ServerInfrastructure {
  readonly driver: 'postgres';
}

interface PostgresScopePorts extends ScopePorts {
  readonly storedEventStore: PostgresEventStore;
  readonly bus: KafkaMessageBus;
}

export const DEFAULT_DATABASE_POOL_SIZE = 2;

/** The schema of a scope's log, read models and idempotency records. */
export const scopeSchema = (scope: StoreScope): string => `cip_${scope}`;

/**
 * The PostgreSQL + Kafka runtime's ports (STORE_DRIVER=postgres). Each scope has its schema in DATABASE_URL
 * (`cip_control`, `cip_sandbox`, `cip_production`) holding its log (PostgresEventStore: positions in commit
 * order under the schema's append lock), its read models and its idempotency records (a keyed request's run
 * recorded in its events' transaction), and its Kafka topics and groups (`<KAFKA_TOPIC_PREFIX><scope>.`),
 * which only the relay process writes, from the log. Consumers (projections, sagas, the dispatcher) read
 * Kafka in consumer groups, so several replicas of a service share the work.
 */
export async function openPostgresInfrastructure(
  options: PostgresInfrastructureOptions,
): Promise<PostgresInfrastructure> {
  const { logger, metrics } = options;
  const poolSize = options.poolSize ?? DEFAULT_DATABASE_POOL_SIZE;
  const kafka = openKafka(options);
  const masterKey = personalDataMasterKey(options.personalData.masterKey);
  const pools: Pool[] = [];
  const scopes = new Map<StoreScope, PostgresScopePorts>();
  const applicationName = `cip:${options.clientId}`;
  let leases: PostgresLeases | undefined;
  try {
    for (const scope of STORE_SCOPES) {
      const schema = scopeSchema(scope);
      const pool = openPostgresPool(options.databaseUrl, { max: poolSize, schema, applicationName });
      pools.push(pool);
      await ensurePostgresSchema(pool, schema);
      // The keys apart from the log when the deployment gives them a database (PERSONAL_DATA_DATABASE_URL);
      // else in the scope's schema, on its pool (no connection more per scope and process).
      let keysPool = pool;
      if (options.personalDataDatabaseUrl) {
        keysPool = openPostgresPool(options.personalDataDatabaseUrl, { max: 1, schema, applicationName });
        pools.push(keysPool);
        await ensurePostgresSchema(keysPool, schema);
      }
      const name = `postgres:${scope}`;
      const storedEventStore = await PostgresEventStore.open({
        name,
        connectionString: options.databaseUrl,
        pool,
        onCommit: (appends, waited) => {
          metrics?.appendBatchSize.observe({ store: name }, appends);
          for (const ms of waited) metrics?.appendDuration.observe({ store: name }, ms / 1000);
        },
      });
      // The age of the database's oldest writing transaction (one holding an append lock stalls the log):
      // asked of one store, the database is the scopes' one.
      if (scope === 'control') metrics?.watchPostgresTransactions(storedEventStore);
      const personalData = new PersonalDataVault(
        await PostgresPersonalDataKeyStore.open(keysPool),
        masterKey,
        options.personalData.policies,
      );
      // The deployment's leases (the elected webhook dispatcher): in the control scope's schema, judged on the
      // database's clock.
      if (scope === 'control') leases = await PostgresLeases.open(pool);
      scopes.set(scope, {
        scope,
        eventStore: new PersonalDataEventStore(storedEventStore, personalData),
        storedEventStore,
        personalData,
        bus: scopeBus(kafka, scope, storedEventStore, options),
        readStore: await PostgresReadStore.open(pool),
        // A keyed request's run is marked in the transaction of its events: a retry never runs it twice.
        idempotency: await PostgresIdempotencyStore.open(pool, {
          witnessAppends: (witness) => storedEventStore.witnessAppends(witness),
        }),
      });
    }
  } catch (error) {
    for (const ports of scopes.values()) await ports.storedEventStore.close();
    await Promise.all(pools.map((pool) => pool.end()));
    throw error;
  }

  const relays: KafkaRelay[] = [];
  let closed = false;
  return {
    driver: 'postgres',
    leases: leases as PostgresLeases,
    scope: (scope) => {
      const ports = scopes.get(scope);
      if (!ports) throw new Error(`Unknown store scope ${scope}`);
      return ports;
    },
    startRelays: async () => {
      if (closed) throw new Error('The infrastructure is closed');
      if (relays.length) throw new Error('The relays are already started');
      relays.push(...(await startScopeRelays([...scopes.values()], logger)));
      return [...relays];
    },
    close: async () => {
      if (closed) return;
      closed = true;
      // Relays first (they produce to the buses), then consumers and producers, then the stores and pools.
      for (const relay of relays) await relay.stop();
      for (const ports of scopes.values()) {
        await ports.bus.close();
        await ports.eventStore.close();
      }
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
}
