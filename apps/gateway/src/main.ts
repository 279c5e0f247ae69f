import 'reflect-metadata';
import { DistributorsService, firstSandboxKeyLines } from '@cip/distributors/service';
import { createHttpApp } from '@cip/gateway/http';
import { serviceClients } from '@cip/platform/composition';
import { readStoreDriver, serviceInfrastructure } from '@cip/shared/infrastructure';
import { createLogger, listenUrl, readPlatformConfig, runMain } from '@cip/shared/runtime';
import { GatewayModule } from './gateway.module';

/**
 * The /v1 gateway (PORT, default 3000) in front of every service of PLATFORM_SERVICES
 * (<SERVICE>_HOST:<SERVICE>_TCP_PORT), on the stores STORE_DRIVER names (embedded: DATA_DIR; distributed:
 * EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL). BOOTSTRAP_SANDBOX_API_KEY / BOOTSTRAP_PRODUCTION_API_KEY, when
 * set, register those keys on the default distributor (created if missing), as the embedded runtime does;
 * on the embedded driver the first start also shows a new sandbox key when none is given.
 */
async function main(): Promise<void> {
  const config = readPlatformConfig();
  const logger = createLogger(config.logLevel, 'gateway');
  const app = await createHttpApp(
    GatewayModule.forRoot({
      infrastructure: serviceInfrastructure('gateway', { contexts: [], runConsumers: false, logger }),
      services: serviceClients(null),
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
  // On one host (the embedded driver) the gateway is the one process that bootstraps, as `npm start` does: the
  // very first start creates the default distributor and shows its sandbox key once. Distributed, replicas
  // may start together: only the deployment's keys are registered.
  const embedded = readStoreDriver() === 'embedded';
  const bootstrap =
    embedded || config.bootstrapSandboxApiKey || config.bootstrapProductionApiKey
      ? await app.get(DistributorsService).bootstrap({
          sandboxKey: config.bootstrapSandboxApiKey,
          productionKey: config.bootstrapProductionApiKey,
        })
      : null;
  // createHttpApp enabled Nest's shutdown hooks: SIGTERM stops the listener, then closes the stores.
  await app.listen({ port: config.port, host: config.host });
  logger.info({ port: config.port }, 'gateway listening');
  if (bootstrap?.firstSandboxKey) {
    // For the person at the terminal, as the embedded platform's banner: stderr, never the JSON log.
    process.stderr.write(`${firstSandboxKeyLines(bootstrap.firstSandboxKey).join('\n')}\n`);
  }
}

runMain('Gateway', main);
