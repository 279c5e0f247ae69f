import 'reflect-metadata';
import { STORE_SCOPES } from '@cip/shared/infrastructure';
import { openDistributedInfrastructure, readDistributedConfig } from '@cip/shared/infrastructure/distributed';
import { createLogger, PlatformMetrics, readLogLevel, readPort, runMain } from '@cip/shared/runtime';
import { createServer } from 'node:http';
import { Gauge } from 'prom-client';

/**
 * The relay: tails each scope's EventStoreDB log and produces it to that scope's Kafka topics, the only path
 * from the stores to the bus. Exactly one runs per deployment. /health and /metrics on METRICS_PORT.
 */
async function main(): Promise<void> {
  const logger = createLogger(readLogLevel(), 'relay');
  const metrics = new PlatformMetrics();
  const infrastructure = await openDistributedInfrastructure({
    ...readDistributedConfig('cip-relay'),
    logger,
    metrics,
  });
  const relays = await infrastructure.startRelays();
  new Gauge({
    name: 'relay_position',
    help: 'Global position of the event store log produced to Kafka and checkpointed, by scope',
    labelNames: ['scope'] as const,
    registers: [metrics.registry],
    collect() {
      // startRelays starts one relay per scope, in STORE_SCOPES order.
      relays.forEach((relay, i) => this.set({ scope: STORE_SCOPES[i] }, relay.position));
    },
  });

  const server = createServer((request, response) => {
    if (request.url === '/health') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
    } else if (request.url === '/metrics') {
      metrics.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    } else {
      response.writeHead(404).end();
    }
  });
  const metricsPort = readPort('METRICS_PORT', 9464);
  server.listen(metricsPort, process.env.HOST || '0.0.0.0');
  logger.info({ metricsPort, scopes: STORE_SCOPES.slice(0, relays.length) }, 'relays started');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close();
    // Stops the relays first: the batch in flight is produced and checkpointed, or resent after a restart.
    await infrastructure.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

runMain('Relay', main);
