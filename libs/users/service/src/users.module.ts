import { Inject, Module } from '@nestjs/common';
import { Environment } from '@cip/shared/contracts';
import { ConsumerHost, Infrastructure, INFRASTRUCTURE } from '@cip/shared/infrastructure';
import { CLOCK, Clock } from '@cip/shared/runtime';
import { usersProjection } from '@cip/users/read-models';
import { USERS_API } from './users.api';
import { UsersService } from './users.service';

/** The users context: command handlers, the `users` read model. */
@Module({
  providers: [
    {
      provide: UsersService,
      inject: [INFRASTRUCTURE, ConsumerHost, CLOCK],
      useFactory: (infrastructure: Infrastructure, consumers: ConsumerHost, clock: Clock) =>
        new UsersService(
          {
            eventStore: (environment: Environment) => infrastructure.scope(environment).eventStore,
            readStore: (environment: Environment) => infrastructure.scope(environment).readStore,
            settle: (environment: Environment) =>
              consumers.settle(environment, [`projection.${usersProjection.name}`]),
          },
          clock,
        ),
    },
    { provide: USERS_API, useExisting: UsersService },
  ],
  exports: [UsersService, USERS_API],
})
export class UsersModule {
  constructor(@Inject(ConsumerHost) consumers: ConsumerHost) {
    consumers.registerProjection(usersProjection);
  }
}
