import { DynamicModule, Module, ModuleMetadata, OnApplicationShutdown } from '@nestjs/common';
import { ClientTCP } from '@nestjs/microservices';
import { LOGGER, Readiness } from '@cip/shared/infrastructure';
import type { Logger } from '@cip/shared/runtime';
import type { ContextApi, ContextContract } from '@cip/shared/contracts';
import { contextClient, ServiceClient, ServiceClientOptions } from './context-client';
import { contextMessageController } from './context-server';
import { readServiceConnectionOptions, ServiceConnections } from './service-connections';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of contracts of different APIs
type AnyContract = ContextContract<any>;

export interface ServiceClientModuleOptions extends ServiceClientOptions {
  /** The service's name (breaker, logs, errors). */
  service: string;
  host: string;
  port: number;
  /** The contracts the service hosts: each is provided under its token as a client. */
  contracts: AnyContract[];
}

let serviceClients = 0;

const definedOnly = (options: ServiceConnectionOptionsLike) =>
  Object.fromEntries(
    (['connections', 'maxCommandsPerConnection', 'maxConnectionAgeMs'] as const)
      .filter((key) => options[key] !== undefined)
      .map((key) => [key, options[key]]),
  );
type ServiceConnectionOptionsLike = Pick<
  ServiceClientOptions,
  'connections' | 'maxCommandsPerConnection' | 'maxConnectionAgeMs'
>;

class ServiceClientLifecycle implements OnApplicationShutdown {
  constructor(private readonly client: ServiceClient) {}
  onApplicationShutdown(): void {
    this.client.shutdown();
  }
}

/**
 * Context APIs over TCP (`@nestjs/microservices`). `forServer` mounts the modules providing the APIs behind
 * one message handler per method (a context's service app); `forClient` provides each API as a client of the
 * service that hosts it, behind one breaker per service (the gateway, or a context calling another).
 */
@Module({})
export class ContextTransportModule {
  static forServer(options: { imports: ModuleMetadata['imports']; contracts: AnyContract[] }): DynamicModule {
    return {
      module: ContextTransportModule,
      imports: options.imports,
      controllers: options.contracts.map(contextMessageController),
    };
  }

  static forClient(options: ServiceClientModuleOptions): DynamicModule {
    const client = Symbol(`${options.service.toUpperCase()}_SERVICE_CLIENT`);
    // SERVICE_CONNECTIONS and the recycling bounds from the environment, unless the app sets them.
    const pool = { ...readServiceConnectionOptions(), ...definedOnly(options) };
    return {
      module: ContextTransportModule,
      // Like the contexts' own modules: any module may inject a contract's token, whoever provides it.
      global: true,
      providers: [
        {
          provide: client,
          // A process without the InfrastructureModule has no /health to report on.
          inject: [LOGGER, { token: Readiness, optional: true }],
          useFactory: (logger: Logger, readiness: Readiness | undefined) => {
            const connections = new ServiceConnections(
              () => new ClientTCP({ host: options.host, port: options.port }),
              pool,
            );
            const service = new ServiceClient(options.service, connections, logger, options);
            // Reported, never "not ready": one service down must not take this process out of service
            // (its calls already answer 503 service_unavailable; the others still work).
            readiness?.registerAll(`breaker:${options.service}#${++serviceClients}`, () => ({
              [`breaker:${options.service}`]: {
                ready: true,
                breaker: service.breakerState,
                connections: connections.size,
              },
            }));
            return service;
          },
        },
        {
          provide: ServiceClientLifecycle,
          inject: [client],
          useFactory: (service: ServiceClient) => new ServiceClientLifecycle(service),
        },
        ...options.contracts.map((contract) => ({
          provide: contract.token,
          inject: [client],
          useFactory: (service: ServiceClient) =>
            contextClient(contract as ContextContract<ContextApi<object>>, service),
        })),
      ],
      exports: options.contracts.map((contract) => contract.token),
    };
  }
}
