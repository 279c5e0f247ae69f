import 'reflect-metadata';
import { InfrastructureModule, serviceInfrastructure } from '@cip/shared/infrastructure';
import { RelayModule } from '@cip/shared/infrastructure/distributed';
import { createLogger, readLogLevel } from '@cip/shared/runtime';
import { runServiceApp } from '@cip/shared/transport';

/**
 * The relay: tails each scope's log (PostgreSQL with STORE_DRIVER=postgres, EventStoreDB with `distributed`)
 * and produces it to that scope's Kafka topics, the only path from the stores to the bus. Exactly one runs per
 * deployment (a second one stops on its first checkpoint); the embedded driver has none (STORE_DRIVER=embedded
 * is refused at start). Kafka client id `cip-relay`; /health (its stores, each relay loop running and not
 * stuck retrying, with its lag), /health/live and /metrics on METRICS_PORT.
 */
runServiceApp('Relay', () => {
  const logger = createLogger(readLogLevel(), 'relay');
  const stores = serviceInfrastructure('relay', {
    contexts: [],
    runConsumers: false,
    logger,
  });
  return { name: 'relay', logger, imports: [InfrastructureModule.forRoot(stores), RelayModule] };
});
