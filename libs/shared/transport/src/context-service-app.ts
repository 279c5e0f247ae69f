import {
  ConsoleLogger,
  DynamicModule,
  INestApplicationContext,
  Module,
  ModuleMetadata,
  Provider,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ContextDefinition,
  ContextsModule,
  InfrastructureModule,
  InfrastructureModuleOptions,
  serviceInfrastructure,
  SystemController,
} from '@cip/shared/infrastructure';
import type { PublicEventMapper } from '@cip/shared/read-store';
import { createLogger, type Logger, readLogLevel, readPort, runMain } from '@cip/shared/runtime';
import { ContextTransportModule, ServiceClientModuleOptions } from './context-transport.module';

export interface ContextServiceModuleOptions {
  infrastructure: InfrastructureModuleOptions;
  /** The contexts the service hosts: their modules, read models, sagas; their contracts are served. */
  contexts: readonly ContextDefinition[];
  /**
   * The other services, as clients of their contracts (one breaker each): whatever the hosted contexts call
   * of a context they do not host goes there. Connections are opened on the first call.
   */
  remotes?: ServiceClientModuleOptions[];
  /** Options and adapters the contexts need (only apps choose adapters). */
  providers?: Provider[];
  /** Modules the contexts need besides each other (the control plane). */
  imports?: ModuleMetadata['imports'];
  /** The public Event mappers to record and deliver with (default: the hosted contexts' own). */
  publicEvents?: PublicEventMapper[];
}

@Module({})
class ContextServiceModule {}

/**
 * A context's service: its contexts in one process, the contracts they provide served as message handlers,
 * every other service's contracts as clients, the log consumers running, and /health and /metrics.
 */
export function contextServiceModule(options: ContextServiceModuleOptions): DynamicModule {
  return {
    module: ContextServiceModule,
    imports: [
      InfrastructureModule.forRoot(options.infrastructure),
      ...(options.imports ?? []),
      ...(options.remotes ?? []).map((remote) => ContextTransportModule.forClient(remote)),
      ContextsModule.forRoot({
        contexts: options.contexts,
        providers: options.providers,
        publicEvents: options.publicEvents,
      }),
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
  /** The process's logger (default: LOG_LEVEL, named after the service). */
  logger?: Logger;
  /** Other SQLite files of the hosted contexts the embedded driver's checkpoint worker runs (card vaults). */
  checkpointedFiles?: string[];
  /**
   * Runs once every module is up, before the first command is accepted: wiring that needs the running
   * contexts (the public URLs their links start with).
   */
  beforeListening?(app: INestApplicationContext): void | Promise<void>;
}

/**
 * The app template of a context service: the contexts on the driver STORE_DRIVER names
 * (`serviceInfrastructure`), commands on TCP (`tcpPort`), /health and /metrics on METRICS_PORT. On SIGTERM
 * Nest closes the TCP and HTTP listeners, then the consumers and the stores.
 */
export function runContextService(
  compose: ContextServiceAppOptions | (() => ContextServiceAppOptions),
): void {
  const name = typeof compose === 'function' ? 'Service' : `${compose.name} service`;
  runMain(name, async () => {
    // Composed inside runMain: a wrong variable stops the start with its message, not an uncaught throw.
    const options = typeof compose === 'function' ? compose() : compose;
    const logger = options.logger ?? createLogger(readLogLevel(), options.name);
    const host = process.env.HOST || '0.0.0.0';
    const tcpPort = readPort(options.tcpPort.env, options.tcpPort.default);
    const metricsPort = readPort('METRICS_PORT', 9464);
    const app = await NestFactory.create<NestFastifyApplication>(
      contextServiceModule({
        ...options,
        infrastructure: serviceInfrastructure(options.name, {
          contexts: options.contexts,
          runConsumers: true,
          logger,
          checkpointedFiles: options.checkpointedFiles,
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
    await options.beforeListening?.(app);
    await app.startAllMicroservices();
    await app.listen({ port: metricsPort, host });
    logger.info({ tcpPort, metricsPort }, `${options.name} service listening`);
  });
}
