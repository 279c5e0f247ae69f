import type { Environment } from '@cip/shared/contracts';
import type { EventStore, MessageBus } from '@cip/shared/eventing';
import type { IdempotencyStore, ReadStore } from '@cip/shared/read-store';

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
  readonly eventStore: EventStore;
  readonly bus: MessageBus;
  readonly readStore: ReadStore;
  readonly idempotency: IdempotencyStore;
}

export interface Infrastructure {
  readonly driver: 'embedded' | 'distributed';
  scope(scope: StoreScope): ScopePorts;
  close(): Promise<void>;
}

/** Injection token of the Infrastructure chosen by the app (only apps pick drivers). */
export const INFRASTRUCTURE = Symbol('INFRASTRUCTURE');

/** The event store and read store of each environment, as context services take them. */
export interface EnvironmentStores {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
}

export const environmentStores = (infrastructure: Infrastructure): EnvironmentStores => ({
  eventStore: (environment) => infrastructure.scope(environment).eventStore,
  readStore: (environment) => infrastructure.scope(environment).readStore,
});
