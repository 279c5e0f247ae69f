import { DynamicModule, Module, ModuleMetadata, Provider } from '@nestjs/common';
import {
  ContextDefinition,
  ContextsModule,
  InfrastructureModule,
  InfrastructureModuleOptions,
  serviceInfrastructure,
} from '@cip/shared/infrastructure';
import type { PublicEventMapper } from '@cip/shared/read-store';
import { createLogger, readLogLevel } from '@cip/shared/runtime';
import { ContextTransportModule, ServiceClientModuleOptions } from './context-transport.module';
import { runServiceApp, type ServiceAppOptions } from './service-app';

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
 * every other service's contracts as clients, the log consumers running (/health and /metrics are the app
 * template's, `runServiceApp`).
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
  };
}

export interface ContextServiceAppOptions
  extends
    Omit<ContextServiceModuleOptions, 'infrastructure'>,
    Omit<ServiceAppOptions, 'imports' | 'tcpPort'> {
  /** The TCP port of its commands: an environment variable and its default. */
  tcpPort: { env: string; default: number };
  /** Other SQLite files of the hosted contexts the embedded driver's checkpoint worker runs (card vaults). */
  checkpointedFiles?: string[];
}

/**
 * The app template of a context service (`runServiceApp`): the contexts on the driver STORE_DRIVER names
 * (`serviceInfrastructure`), commands on TCP (`tcpPort`), /health and /metrics on METRICS_PORT. On SIGTERM
 * Nest closes the TCP and HTTP listeners, then the consumers and the stores.
 */
export function runContextService(
  compose: ContextServiceAppOptions | (() => ContextServiceAppOptions),
): void {
  const label = typeof compose === 'function' ? 'Service' : `${compose.name} service`;
  runServiceApp(label, () => {
    const options = typeof compose === 'function' ? compose() : compose;
    const logger = options.logger ?? createLogger(readLogLevel(), options.name);
    const infrastructure = serviceInfrastructure(options.name, {
      contexts: options.contexts,
      runConsumers: true,
      logger,
      checkpointedFiles: options.checkpointedFiles,
    });
    return {
      name: `${options.name} service`,
      imports: [contextServiceModule({ ...options, infrastructure })],
      tcpPort: options.tcpPort,
      logger,
      beforeListening: options.beforeListening,
    };
  });
}
