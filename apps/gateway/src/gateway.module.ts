import { DynamicModule, Module } from '@nestjs/common';
import { DistributorsModule } from '@cip/distributors/service';
import { eventsContext } from '@cip/events/service';
import { GatewayHttpModule } from '@cip/gateway/http';
import {
  ContextDefinition,
  ContextsModule,
  controllersOf,
  InfrastructureModule,
  InfrastructureModuleOptions,
} from '@cip/shared/infrastructure';
import { ContextTransportModule, ServiceClientOptions } from '@cip/shared/transport';
import { usersContext } from '@cip/users/service';

/** Where a context service listens, and how long its clients wait. */
export interface ServiceAddress extends ServiceClientOptions {
  host: string;
  port: number;
}

export interface GatewayModuleOptions {
  infrastructure: InfrastructureModuleOptions;
  users: ServiceAddress;
}

/** Contexts served by their own services: the gateway reaches them through their contracts' clients. */
const REMOTE_CONTEXTS: {
  context: ContextDefinition;
  service: keyof Omit<GatewayModuleOptions, 'infrastructure'>;
}[] = [{ context: usersContext, service: 'users' }];
/** Contexts the gateway reads in process (their read models are kept by the services' consumers). */
const LOCAL_CONTEXTS = [eventsContext];

/**
 * The /v1 gateway of the distributed runtime. Commands go to the context services over TCP; the control
 * plane (API keys), idempotency records and the Event records are read from the stores directly. It runs no
 * consumers: the services that own the streams keep the read models and Event records up to date.
 */
@Module({})
export class GatewayModule {
  static forRoot(options: GatewayModuleOptions): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        InfrastructureModule.forRoot({ ...options.infrastructure, runConsumers: false }),
        DistributorsModule,
        ...REMOTE_CONTEXTS.map(({ context, service }) =>
          ContextTransportModule.forClient({ service, ...options[service], contracts: context.contracts }),
        ),
        ContextsModule.forRoot({ contexts: LOCAL_CONTEXTS }),
        GatewayHttpModule.forRoot({
          controllers: controllersOf([...REMOTE_CONTEXTS.map(({ context }) => context), ...LOCAL_CONTEXTS]),
        }),
      ],
    };
  }
}
