import { ConsoleLogger, DynamicModule, Module, ModuleMetadata, Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ContextDefinition,
  ContextsModule,
  personalDataOf,
  InfrastructureModule,
  InfrastructureModuleOptions,
  SystemController,
} from '@cip/shared/infrastructure';
import { distributedInfrastructure, readPort, runMain } from '@cip/shared/infrastructure/distributed';
import { createLogger, readLogLevel } from '@cip/shared/runtime';
import { ContextTransportModule } from './context-transport.module';

export interface ContextServiceModuleOptions {
  infrastructure: InfrastructureModuleOptions;
  /** The contexts the service hosts: their modules, read models, sagas; their contracts are served. */
  contexts: readonly ContextDefinition[];
  /** Options and adapters the contexts need (only apps choose adapters). */
  providers?: Provider[];
  /** Modules the contexts need besides each other (the control plane, clients of other services). */
  imports?: ModuleMetadata['imports'];
}

@Module({})
class ContextServiceModule {}

/**
 * A context's service: its contexts in one process, the contracts they provide served as message handlers,
 * the log consumers running, and /health and /metrics.
 */
export function contextServiceModule(options: ContextServiceModuleOptions): DynamicModule {
  return {
    module: ContextServiceModule,
    imports: [
      InfrastructureModule.forRoot(options.infrastructure),
      ...(options.imports ?? []),
      ContextsModule.forRoot({ contexts: options.contexts, providers: options.providers }),
      ContextTransportModule.forServer({
        imports: [],
        contracts: options.contexts.flatMap((context) => context.contracts),
      }),
    ],
    controllers: [SystemController],
  };
}

export interface ContextServiceAppOptions extends Omit<ContextServiceModuleOptions, 'infrastructure'> {
  /** The service's name (logs, the Kafka client id `cip-<name>`). */
  name: string;
  /** The TCP port of its commands: an environment variable and its default. */
  tcpPort: { env: string; default: number };
}

/**
 * The app template of a context service in the distributed runtime: the contexts on EVENTSTORE_URL,
 * KAFKA_BROKERS and MONGO_URL, commands on TCP (`tcpPort`), /health and /metrics on METRICS_PORT. On SIGTERM
 * Nest closes the TCP and HTTP listeners, then the consumers and the store connections.
 */
export function runContextService(options: ContextServiceAppOptions): void {
  runMain(`${options.name} service`, async () => {
    const logger = createLogger(readLogLevel(), options.name);
    const host = process.env.HOST || '0.0.0.0';
    const tcpPort = readPort(options.tcpPort.env, options.tcpPort.default);
    const metricsPort = readPort('METRICS_PORT', 9464);
    const app = await NestFactory.create<NestFastifyApplication>(
      contextServiceModule({
        ...options,
        infrastructure: distributedInfrastructure(`cip-${options.name}`, {
          logger,
          runConsumers: true,
          personalData: personalDataOf(options.contexts),
        }),
      }),
      new FastifyAdapter({ logger: false }),
      { logger: new ConsoleLogger({ json: true, logLevels: ['error', 'warn'] }), abortOnError: false },
    );
    app.connectMicroservice<MicroserviceOptions>({
      transport: Transport.TCP,
      options: { host, port: tcpPort },
    });
    app.enableShutdownHooks();
    // Every module, consumers included, is up before the first command is accepted.
    await app.init();
    await app.startAllMicroservices();
    await app.listen({ port: metricsPort, host });
    logger.info({ tcpPort, metricsPort }, `${options.name} service listening`);
  });
}
