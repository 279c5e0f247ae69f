import { ConfigError, type Logger, readWalLimitBytes } from '@cip/shared/runtime';
import { resolve } from 'node:path';
import { type ContextDefinition, personalDataOf } from './contexts/context-definition';
import type { PersonalDataPolicy } from '@cip/shared/contracts';
import type { Infrastructure, StoreDriver } from './infrastructure';
import { openEmbeddedInfrastructure } from './embedded-infrastructure';
import { embeddedServiceOptions } from './embedded-service-options';
import type { InfrastructureModuleOptions } from './infrastructure.module';

export const STORE_DRIVERS: readonly StoreDriver[] = ['embedded', 'postgres', 'distributed'];

/**
 * STORE_DRIVER of a process of the split platform (the services, the gateway): `distributed` (EventStoreDB,
 * Kafka, MongoDB; the default, what docker-compose and the Helm chart run), `postgres` (PostgreSQL and Kafka:
 * DATABASE_URL, KAFKA_BROKERS) or `embedded` (every process opens the same SQLite files under DATA_DIR).
 */
export function readStoreDriver(env: NodeJS.ProcessEnv = process.env): StoreDriver {
  const value = env.STORE_DRIVER || 'distributed';
  if (!(STORE_DRIVERS as readonly string[]).includes(value))
    throw new ConfigError([`STORE_DRIVER: must be one of ${STORE_DRIVERS.join(', ')} (got "${value}")`]);
  return value as StoreDriver;
}

export interface ServiceInfrastructureOptions {
  /** The contexts the process hosts: the personal data of their events is sealed on append. */
  contexts: readonly ContextDefinition[];
  /** Whether the process runs its contexts' consumers (the services do; the gateway and dashboard don't). */
  runConsumers: boolean;
  logger: Logger;
  /** Other SQLite files of the process (a context's own store) the embedded checkpoint worker runs. */
  checkpointedFiles?: string[];
  /** The driver, if not STORE_DRIVER's. */
  driver?: StoreDriver;
  env?: NodeJS.ProcessEnv;
}

/**
 * The stores of one process of the split platform, on the driver STORE_DRIVER names:
 * - embedded: the SQLite files under DATA_DIR, shared by every process on the host (SQLite's WAL is made
 *   for several processes), PERSONAL_DATA_MASTER_KEY or the one generated under DATA_DIR/secrets;
 * - postgres: DATABASE_URL, KAFKA_BROKERS and PERSONAL_DATA_MASTER_KEY (readPostgresConfig), loaded only then;
 * - distributed: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL and PERSONAL_DATA_MASTER_KEY (Kafka client id
 *   `cip-<name>`), loaded only then: the embedded driver never pays for the servers' clients.
 */
export function serviceInfrastructure(
  name: string,
  options: ServiceInfrastructureOptions,
): InfrastructureModuleOptions {
  const env = options.env ?? process.env;
  const driver = options.driver ?? readStoreDriver(env);
  const policies = personalDataOf(options.contexts);
  const open: InfrastructureModuleOptions['open'] =
    driver === 'embedded'
      ? ({ metrics, logger }) =>
          openEmbeddedInfrastructure({
            dataDir: resolve(env.DATA_DIR || './data'),
            walLimitBytes: readWalLimitBytes(env),
            metrics,
            logger,
            personalData: { policies, masterKey: env.PERSONAL_DATA_MASTER_KEY || undefined },
            checkpointedFiles: options.checkpointedFiles,
            ...embeddedServiceOptions(),
          })
      : driver === 'postgres'
        ? async ({ metrics, logger }) => {
            const { openPostgresInfrastructure, readPostgresConfig } = await import('./postgres');
            const config = readPostgresConfig(`cip-${name}`, env, policies);
            return openPostgresInfrastructure({ ...config, logger, metrics });
          }
        : async ({ metrics, logger }) => {
            const { openDistributedInfrastructure, readDistributedConfig } = await import('./distributed');
            const config = readDistributedConfig(`cip-${name}`, env, policies);
            return openDistributedInfrastructure({ ...config, logger, metrics });
          };
  return { open, runConsumers: options.runConsumers, logger: options.logger, process: name };
}

/**
 * The stores of STORE_DRIVER=postgres opened by a tool rather than an app (the CLI's staff commands), on pools
 * of one connection: readPostgresConfig's settings (a ConfigError names what is wrong), loaded only when called.
 */
export async function openPostgresStoresForTool(
  clientId: string,
  env: NodeJS.ProcessEnv,
  policies: readonly PersonalDataPolicy[] = [],
): Promise<{ infrastructure: Infrastructure; databaseUrl: string; masterKey: string }> {
  const { openPostgresInfrastructure, readPostgresConfig } = await import('./postgres');
  const config = readPostgresConfig(clientId, env, policies);
  return {
    infrastructure: await openPostgresInfrastructure({ ...config, poolSize: 1 }),
    databaseUrl: config.databaseUrl,
    masterKey: config.personalData.masterKey,
  };
}
