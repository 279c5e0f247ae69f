import 'reflect-metadata';
import { DistributorsService } from '@cip/distributors/service';
import { createHttpApp } from '@cip/gateway/http';
import { createLogger, PlatformMetrics, readPlatformConfig } from '@cip/shared/runtime';
import { GatewayModule } from './gateway.module';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535)
    throw new Error(`${name} must be a port, got "${raw}"`);
  return value;
}

/**
 * The /v1 gateway (PORT, default 3000) in front of the context services (USERS_HOST:USERS_TCP_PORT), on
 * EVENTSTORE_URL, KAFKA_BROKERS and MONGO_URL. BOOTSTRAP_SANDBOX_API_KEY / BOOTSTRAP_PRODUCTION_API_KEY, when
 * set, register those keys on the default distributor (created if missing), as the embedded runtime does.
 */
async function main(): Promise<void> {
  const config = readPlatformConfig();
  const logger = createLogger(config.logLevel, 'gateway');
  const app = await createHttpApp(
    GatewayModule.forRoot({
      infrastructure: {
        eventStoreUrl: required('EVENTSTORE_URL'),
        kafkaBrokers: required('KAFKA_BROKERS')
          .split(',')
          .map((broker) => broker.trim())
          .filter(Boolean),
        mongoUrl: required('MONGO_URL'),
        clientId: process.env.KAFKA_CLIENT_ID || 'cip-gateway',
      },
      users: { host: process.env.USERS_HOST || 'localhost', port: port('USERS_TCP_PORT', 4010) },
      logger,
      metrics: new PlatformMetrics(),
    }),
    { logger, rateLimit: config.rateLimit },
  );
  if (config.bootstrapSandboxApiKey || config.bootstrapProductionApiKey) {
    await app.get(DistributorsService).bootstrap({
      sandboxKey: config.bootstrapSandboxApiKey,
      productionKey: config.bootstrapProductionApiKey,
    });
  }
  // createHttpApp enabled Nest's shutdown hooks: SIGTERM stops the listener, then closes the stores.
  await app.listen({ port: config.port, host: config.host });
  logger.info({ port: config.port }, 'gateway listening');
}

main().catch((error) => {
  process.stderr.write(`Gateway failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
