import 'reflect-metadata';
import { DistributorsService } from '@cip/distributors/service';
import { createHttpApp } from '@cip/gateway/http';
import { createLogger, listenUrl, readPlatformConfig } from '@cip/shared/runtime';
import { distributedInfrastructure, readPort, runMain } from '@cip/shared/infrastructure/distributed';
import { GatewayModule } from './gateway.module';

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
      infrastructure: distributedInfrastructure('cip-gateway', { logger, runConsumers: false }),
      users: { host: process.env.USERS_HOST || 'localhost', port: readPort('USERS_TCP_PORT', 4010) },
    }),
    {
      logger,
      rateLimit: config.rateLimit,
      timeouts: config.httpTimeouts,
      publicBaseUrl: config.publicBaseUrl,
      // PORT=0 binds any free port, known only once listening: the document then keeps the generic default.
      localBaseUrl: config.port ? listenUrl(config.host, config.port) : undefined,
    },
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

runMain('Gateway', main);
