import type { PersonalDataPolicy } from '@cip/shared/contracts';
import { Logger, PlatformMetrics } from '@cip/shared/runtime';
import type { InfrastructureModuleOptions } from '../infrastructure.module';
import {
  DistributedInfrastructureOptions,
  openDistributedInfrastructure,
} from './distributed-infrastructure';

/**
 * The settings every distributed app reads: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL, KAFKA_CLIENT_ID, and
 * PERSONAL_DATA_MASTER_KEY (which wraps the personal-data keys). `policies` are those of the contexts the
 * app writes events of.
 */
export function readDistributedConfig(
  defaultClientId: string,
  env: NodeJS.ProcessEnv = process.env,
  policies: readonly PersonalDataPolicy[] = [],
): Omit<DistributedInfrastructureOptions, 'logger' | 'metrics'> {
  const required = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`${name} must be set`);
    return value;
  };
  return {
    eventStoreUrl: required('EVENTSTORE_URL'),
    kafkaBrokers: required('KAFKA_BROKERS')
      .split(',')
      .map((broker) => broker.trim())
      .filter(Boolean),
    mongoUrl: required('MONGO_URL'),
    clientId: env.KAFKA_CLIENT_ID || defaultClientId,
    personalData: { masterKey: required('PERSONAL_DATA_MASTER_KEY'), policies },
  };
}

/** A TCP port from the environment, or the fallback when unset. */
export function readPort(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535)
    throw new Error(`${name} must be a port, got "${raw}"`);
  return value;
}

/** Runs an app's main; a start-up failure is printed with its stack and exits non-zero. */
export function runMain(appName: string, main: () => Promise<void>): void {
  main().catch((error) => {
    process.stderr.write(
      `${appName} failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  });
}

/**
 * The infrastructure of a distributed app: EventStoreDB, Kafka and MongoDB from the environment (the Kafka
 * client id defaults to `clientId`), fresh metrics, and whether the app runs the log's consumers.
 */
export function distributedInfrastructure(
  clientId: string,
  options: { logger: Logger; runConsumers: boolean; personalData?: readonly PersonalDataPolicy[] },
  env: NodeJS.ProcessEnv = process.env,
): InfrastructureModuleOptions {
  const config = readDistributedConfig(clientId, env, options.personalData);
  return {
    open: ({ logger, metrics }) => openDistributedInfrastructure({ ...config, logger, metrics }),
    runConsumers: options.runConsumers,
    logger: options.logger,
    metrics: new PlatformMetrics(),
  };
}
