import {
  ConsoleLogger,
  DynamicModule,
  INestApplicationContext,
  Module,
  ModuleMetadata,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SystemController } from '@cip/shared/infrastructure';
import { createLogger, type Logger, readLogLevel, readPort, runMain } from '@cip/shared/runtime';

export interface ServiceAppOptions {
  /** The app's name (logs, the start failure's message). */
  name: string;
  /**
   * The app's modules: `InfrastructureModule` (its stores, its Readiness and metrics) and what it runs on
   * them. The template adds `SystemController` (/health, /health/live, /metrics).
   */
  imports: NonNullable<ModuleMetadata['imports']>;
  /** Commands on TCP (a context service's contracts): an environment variable and its default; none if absent. */
  tcpPort?: { env: string; default: number };
  /** The process's logger (default: LOG_LEVEL, named after the app). */
  logger?: Logger;
  /** Runs once every module is up, before the first command is accepted and before /health answers. */
  beforeListening?(app: INestApplicationContext): void | Promise<void>;
}

@Module({})
class ServiceAppModule {}

/** The root module of `runServiceApp`: the app's modules and `SystemController`. */
export const serviceAppModule = (imports: ServiceAppOptions['imports']): DynamicModule => ({
  module: ServiceAppModule,
  imports,
  controllers: [SystemController],
});

/**
 * The app template of every process of the split platform but the HTTP ones (gateway, dashboard): its modules
 * in one Nest app, /health (the Readiness its modules register), /health/live and /metrics on METRICS_PORT
 * (9464), commands on `tcpPort` when it takes any, all on HOST. `compose` runs inside `runMain`: a wrong
 * variable stops the start with `<label> failed to start: <its message>`. On SIGTERM Nest closes the listeners, then the modules (consumers,
 * relays, stores).
 */
export function runServiceApp(label: string, compose: () => ServiceAppOptions): void {
  runMain(label, async () => {
    const options = compose();
    const logger = options.logger ?? createLogger(readLogLevel(), options.name);
    const host = process.env.HOST || '0.0.0.0';
    const tcpPort = options.tcpPort && readPort(options.tcpPort.env, options.tcpPort.default);
    const metricsPort = readPort('METRICS_PORT', 9464);
    const app = await NestFactory.create<NestFastifyApplication>(
      serviceAppModule(options.imports),
      new FastifyAdapter({ logger: false }),
      { logger: new ConsoleLogger({ json: true, logLevels: ['error', 'warn'] }), abortOnError: false },
    );
    if (tcpPort !== undefined) {
      app.connectMicroservice<MicroserviceOptions>({
        transport: Transport.TCP,
        options: { host, port: tcpPort },
      });
    }
    app.enableShutdownHooks();
    // Every module, consumers and relays included, is up before the first command is accepted.
    await app.init();
    await options.beforeListening?.(app);
    await app.startAllMicroservices();
    await app.listen({ port: metricsPort, host });
    logger.info({ tcpPort, metricsPort }, `${options.name} listening`);
  });
}
