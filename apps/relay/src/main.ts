import 'reflect-metadata';
import { Readiness, registerStoreChecks, STORE_SCOPES } from '@cip/shared/infrastructure';
import { openDistributedInfrastructure, readDistributedConfig } from '@cip/shared/infrastructure/distributed';
import { createLogger, PlatformMetrics, readLogLevel, readPort, runMain } from '@cip/shared/runtime';
import { createServer, type ServerResponse } from 'node:http';
import { Gauge } from 'prom-client';

/**
 * The relay: tails each scope's EventStoreDB log and produces it to that scope's Kafka topics, the only path
 * from the stores to the bus. Exactly one runs per deployment. /health (readiness: its stores reachable, each
 * relay loop running and not stuck retrying, with its lag), /health/live and /metrics on METRICS_PORT.
 */
/** The lag /health reports is counted up to this many events (a read of the log past the relay's position). */
const RELAY_LAG_CAP = 1000;

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

  const readiness = new Readiness();
  registerStoreChecks(readiness, infrastructure);
  relays.forEach((relay, i) =>
    readiness.register(`relay:${STORE_SCOPES[i]}`, async () => {
      const status = relay.status();
      return { ready: status.state === 'running', ...status, lagEvents: await relay.backlog(RELAY_LAG_CAP) };
    }),
  );

  const json = (response: ServerResponse, status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((request, response) => {
    if (request.url === '/health') {
      readiness.report().then(
        (report) => json(response, report.status === 'ok' ? 200 : 503, report),
        () => json(response, 503, { status: 'unavailable' }),
      );
    } else if (request.url === '/health/live') {
      json(response, 200, { status: 'ok', uptimeSeconds: Math.round(process.uptime()) });
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
