import { DynamicModule, Module } from '@nestjs/common';
import { DistributorsModule } from '@cip/distributors/service';
import { GatewayHttpModule } from '@cip/gateway/http';
import { PLATFORM_CONTEXTS } from '@cip/platform/registry';
import { controllersOf, InfrastructureModule, InfrastructureModuleOptions } from '@cip/shared/infrastructure';
import { ContextTransportModule, ServiceClientModuleOptions } from '@cip/shared/transport';

export interface GatewayModuleOptions {
  infrastructure: InfrastructureModuleOptions;
  /** Every service of PLATFORM_SERVICES as clients of its contracts (`serviceClients`), one breaker each. */
  services: ServiceClientModuleOptions[];
}

/**
 * The /v1 gateway of the split platform: the controllers of every context (the distributors' API, the hosted
 * pages, the ACS and the simulated directory server), each calling its context's contract through a client
 * of the service that hosts it. The control plane (API keys) and the idempotency records are read from the
 * stores in process. It runs no consumers: the services keep their read models.
 */
@Module({})
export class GatewayModule {
  static forRoot(options: GatewayModuleOptions): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        InfrastructureModule.forRoot({ ...options.infrastructure, runConsumers: false }),
        DistributorsModule,
        ...options.services.map((service) => ContextTransportModule.forClient(service)),
        GatewayHttpModule.forRoot({ controllers: controllersOf(PLATFORM_CONTEXTS) }),
      ],
    };
  }
}
