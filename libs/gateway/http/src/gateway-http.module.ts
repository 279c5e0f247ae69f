import { DynamicModule, Module, ModuleMetadata, Type } from '@nestjs/common';
import { SystemController } from '@cip/shared/infrastructure';

/**
 * The /v1 HTTP surface: the system endpoints plus the controllers of the contexts the app exposes (from the
 * context registry). The contexts' APIs are injected by their contract tokens: in-process services in the
 * embedded runtime, transport clients in the gateway app.
 */
@Module({})
export class GatewayHttpModule {
  static forRoot(options: { imports?: ModuleMetadata['imports']; controllers: Type[] }): DynamicModule {
    return {
      module: GatewayHttpModule,
      imports: options.imports ?? [],
      controllers: [SystemController, ...options.controllers],
    };
  }
}
