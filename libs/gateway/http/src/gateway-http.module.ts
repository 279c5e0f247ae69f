import { DynamicModule, Module, ModuleMetadata, Type } from '@nestjs/common';
import { EventsController } from './events/events.controller';
import { SystemController } from './system/system.controller';
import { UsersController } from './users/users.controller';

/**
 * The /v1 HTTP surface. The app passes the modules that provide the context APIs (in-process services in
 * the embedded runtime, service clients in the distributed one).
 */
@Module({})
export class GatewayHttpModule {
  /** `controllers`: those of contexts the app hosts beyond the core ones (e.g. WALLETS_CONTROLLERS). */
  static forRoot(options: {
    imports: ModuleMetadata['imports'];
    controllers?: Type<unknown>[];
  }): DynamicModule {
    return {
      module: GatewayHttpModule,
      imports: options.imports,
      controllers: [SystemController, UsersController, EventsController, ...(options.controllers ?? [])],
    };
  }
}
