import type { PersonalDataPolicy } from '@cip/shared/contracts';
import { ConfigError } from '@cip/shared/runtime';
import type { PostgresInfrastructureOptions } from './postgres-infrastructure';

/**
 * The settings of an app on the PostgreSQL driver: DATABASE_URL, KAFKA_BROKERS, PERSONAL_DATA_MASTER_KEY
 * (required); PERSONAL_DATA_DATABASE_URL, DATABASE_POOL_SIZE, KAFKA_TOPIC_PREFIX, KAFKA_PARTITIONS,
 * KAFKA_CLIENT_ID. Every wrong or missing value is named at once (ConfigError stops the start).
 */
export function readPostgresConfig(
  defaultClientId: string,
  env: NodeJS.ProcessEnv = process.env,
  policies: readonly PersonalDataPolicy[] = [],
): Omit<PostgresInfrastructureOptions, 'logger' | 'metrics'> {
  const problems: string[] = [];
  const required = (name: string): string => {
    const value = env[name];
    if (!value) problems.push(`${name}: must be set (STORE_DRIVER=postgres)`);
    return value ?? '';
  };
  const positiveInteger = (name: string): number | undefined => {
    const value = env[name];
    if (value === undefined || value === '') return undefined;
    if (!/^[1-9][0-9]*$/.test(value)) problems.push(`${name}: must be a positive integer (got "${value}")`);
    return Number(value);
  };
  const config = {
    databaseUrl: required('DATABASE_URL'),
    personalDataDatabaseUrl: env.PERSONAL_DATA_DATABASE_URL || undefined,
    poolSize: positiveInteger('DATABASE_POOL_SIZE'),
    kafkaBrokers: required('KAFKA_BROKERS')
      .split(',')
      .map((broker) => broker.trim())
      .filter(Boolean),
    kafkaTopicPrefix: env.KAFKA_TOPIC_PREFIX || undefined,
    kafkaPartitions: positiveInteger('KAFKA_PARTITIONS'),
    clientId: env.KAFKA_CLIENT_ID || defaultClientId,
    personalData: { masterKey: required('PERSONAL_DATA_MASTER_KEY'), policies },
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}
