import { Module } from '@nestjs/common';
import { ConsumerHost, environmentStores, Infrastructure, INFRASTRUCTURE } from '@cip/shared/infrastructure';
import { CLOCK, Clock } from '@cip/shared/runtime';
import { USER_LIFECYCLE_API, USERS_API } from '@cip/users/contract';
import { usersProjection } from '@cip/users/read-models';
import { UsersService } from './users.service';

/** The users context: command handlers behind its two contracts (distributor API, user lifecycle). */
@Module({
  providers: [
    {
      provide: UsersService,
      inject: [INFRASTRUCTURE, ConsumerHost, CLOCK],
      useFactory: (infrastructure: Infrastructure, consumers: ConsumerHost, clock: Clock) =>
        new UsersService(
          {
            ...environmentStores(infrastructure),
            settle: consumers.settler([`projection.${usersProjection.name}`]),
          },
          clock,
        ),
    },
    { provide: USERS_API, useExisting: UsersService },
    { provide: USER_LIFECYCLE_API, useExisting: UsersService },
  ],
  exports: [UsersService, USERS_API, USER_LIFECYCLE_API],
})
export class UsersModule {}
