import type { PersonalDataPolicy } from '@cip/shared/contracts';
import type { DistributedInfrastructureOptions } from './distributed-infrastructure';

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
