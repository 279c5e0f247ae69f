import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { EventsController } from './events/events.controller';
import { SystemController } from './system/system.controller';
import { UsersController } from './users/users.controller';
import { KycController } from './kyc/kyc.controller';
import { KycSimulationController } from './kyc/kyc-simulation.controller';
import { HostedKycController } from './kyc/hosted-flow/hosted-kyc.controller';

/**
 * The /v1 HTTP surface. The app passes the modules that provide the context APIs (in-process services in
 * the embedded runtime, service clients in the distributed one).
 */
@Module({})
export class GatewayHttpModule {
  static forRoot(options: {
    imports: ModuleMetadata['imports'];
    /** Serve the KYC endpoints and hosted page (the imports then provide KYC_API). */
    kyc?: boolean;
  }): DynamicModule {
    return {
      module: GatewayHttpModule,
      imports: options.imports,
      controllers: [
        SystemController,
        UsersController,
        EventsController,
        ...(options.kyc ? [KycController, KycSimulationController, HostedKycController] : []),
      ],
    };
  }
}
