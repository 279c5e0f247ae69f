import 'reflect-metadata';
import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, PlatformMetrics } from '@cip/shared/runtime';
import { readDistributedConfig, readPort, runMain } from '@cip/shared/infrastructure/distributed';
import { UsersServiceModule } from './users-service.module';

/**
 * The users service: the users context behind TCP message handlers (USERS_TCP_PORT), and an HTTP listener
 * for /health and /metrics only (METRICS_PORT). Stores: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL.
 */
async function main(): Promise<void> {
  const logger = createLogger(process.env.LOG_LEVEL || 'info', 'users');
  const host = process.env.HOST || '0.0.0.0';
  const tcpPort = readPort('USERS_TCP_PORT', 4010);
  const metricsPort = readPort('METRICS_PORT', 9464);
  const app = await NestFactory.create<NestFastifyApplication>(
    UsersServiceModule.forRoot({
      infrastructure: readDistributedConfig('cip-users'),
      logger,
      metrics: new PlatformMetrics(),
    }),
    new FastifyAdapter({ logger: false }),
    { logger: new ConsoleLogger({ json: true, logLevels: ['error', 'warn'] }), abortOnError: false },
  );
  app.connectMicroservice<MicroserviceOptions>({
    transport: Transport.TCP,
    options: { host, port: tcpPort },
  });
  // On SIGTERM Nest closes the TCP and HTTP listeners, then the consumers and the store connections.
  app.enableShutdownHooks();
  // Every module, consumers included, is up before the first command is accepted.
  await app.init();
  await app.startAllMicroservices();
  await app.listen({ port: metricsPort, host });
  logger.info({ tcpPort, metricsPort }, 'users service listening');
}

runMain('Users service', main);
