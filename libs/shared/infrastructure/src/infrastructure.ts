import type { Environment, PersonalDataPolicy } from '@cip/shared/contracts';
import type { EventStore, MessageBus, PersonalDataVault } from '@cip/shared/eventing';
import type { IdempotencyStore, Leases, ReadStore } from '@cip/shared/read-store';

/**
 * A store scope: the control plane (distributors and API keys, shared by both environments) or one of
 * the two environments. Scopes never share data: separate SQLite files embedded, separate stream
 * prefixes / topic prefixes / databases distributed.
 */
export type StoreScope = 'control' | Environment;

export const STORE_SCOPES: readonly StoreScope[] = ['control', 'sandbox', 'production'];

/** The ports of one scope, as every service module sees them whatever the driver. */
export interface ScopePorts {
  readonly scope: StoreScope;
  /** The log as the contexts use it: personal data sealed on append, opened on read (PersonalDataVault). */
  readonly eventStore: EventStore;
  /** The log as stored, personal data sealed: for exports and the relay, never for deciding. */
  readonly storedEventStore: EventStore;
  /**
   * The personal-data keys of the scope: erasure, blind indexes. The bus carries events sealed, as stored;
   * the ConsumerHost opens them for consumers.
   */
  readonly personalData: PersonalDataVault;
  readonly bus: MessageBus;
  readonly readStore: ReadStore;
  readonly idempotency: IdempotencyStore;
}

/**
 * Where a process keeps its stores: `embedded` (SQLite files under DATA_DIR), `postgres` (PostgreSQL and
 * Kafka) or `distributed` (EventStoreDB, Kafka and MongoDB, the design's servers).
 */
export type StoreDriver = 'embedded' | 'postgres' | 'distributed';

export interface Infrastructure {
  readonly driver: StoreDriver;
  scope(scope: StoreScope): ScopePorts;
  /** The deployment's named leases (in the control scope's store): who runs a singleton role (ElectedRole). */
  readonly leases: Leases;
  close(): Promise<void>;
}

/** Injection token of the Infrastructure chosen by the app (only apps pick drivers). */
export const INFRASTRUCTURE = Symbol('INFRASTRUCTURE');

/** The event store and read store of each environment, as context services take them. */
export interface EnvironmentStores {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  personalData(environment: Environment): PersonalDataVault;
}

export const environmentStores = (infrastructure: Infrastructure): EnvironmentStores => ({
  eventStore: (environment) => infrastructure.scope(environment).eventStore,
  readStore: (environment) => infrastructure.scope(environment).readStore,
  personalData: (environment) => infrastructure.scope(environment).personalData,
});

/** How a runtime protects personal data in its scopes' logs (see PersonalDataVault). */
export interface PersonalDataOptions {
  /** Every context's policy: which fields of which events are personal data, and whose. */
  policies: readonly PersonalDataPolicy[];
  /**
   * The platform's master key (PERSONAL_DATA_MASTER_KEY: 32 bytes, base64), which wraps the data keys.
   * The embedded runtime generates one under DATA_DIR/secrets when unset.
   */
  masterKey?: string;
}
