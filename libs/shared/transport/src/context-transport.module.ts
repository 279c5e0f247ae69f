import { DynamicModule, Module, ModuleMetadata, OnApplicationShutdown } from '@nestjs/common';
import { ClientProxy, ClientsModule, Transport } from '@nestjs/microservices';
import { LOGGER } from '@cip/shared/infrastructure';
import type { Logger } from '@cip/shared/runtime';
import type { ContextApi, ContextContract } from '@cip/shared/contracts';
import { contextClient, ServiceClient, ServiceClientOptions } from './context-client';
import { contextMessageController } from './context-server';

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
    const connection = Symbol(`${options.service.toUpperCase()}_SERVICE_CONNECTION`);
    const client = Symbol(`${options.service.toUpperCase()}_SERVICE_CLIENT`);
    return {
      module: ContextTransportModule,
      // Like the contexts' own modules: any module may inject a contract's token, whoever provides it.
      global: true,
      imports: [
        ClientsModule.register([
          { name: connection, transport: Transport.TCP, options: { host: options.host, port: options.port } },
        ]),
      ],
      providers: [
        {
          provide: client,
          inject: [connection, LOGGER],
          useFactory: (proxy: ClientProxy, logger: Logger) =>
            new ServiceClient(options.service, proxy, logger, options),
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
