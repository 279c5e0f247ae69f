import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { EventsController } from './events/events.controller';
import { SystemController } from './system/system.controller';
import { UsersController } from './users/users.controller';
import { EventRedeliveryController, WebhookSubscriptionsController } from './webhooks/webhooks.controller';

/**
 * The /v1 HTTP surface. The app passes the modules that provide the context APIs (in-process services in
 * the embedded runtime, service clients in the distributed one).
 */
@Module({})
export class GatewayHttpModule {
  static forRoot(options: { imports: ModuleMetadata['imports'] }): DynamicModule {
    return {
      module: GatewayHttpModule,
      imports: options.imports,
      controllers: [SystemController, UsersController, EventsController, WebhookSubscriptionsController, EventRedeliveryController],
    };
  }
}
