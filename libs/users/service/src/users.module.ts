import { Module } from '@nestjs/common';
import {
  ConsumerHost,
  contractProviders,
  environmentStores,
  Infrastructure,
  INFRASTRUCTURE,
} from '@cip/shared/infrastructure';
import { CLOCK, Clock } from '@cip/shared/runtime';
import { userLifecycleContract, usersContract } from '@cip/users/contract';
import { usersProjection } from '@cip/users/read-models';
import { UsersService } from './users.service';

/** The users context's APIs, by audience. */
export const USERS_CONTRACTS = [usersContract, userLifecycleContract];

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
            storedEventStore: (environment) => infrastructure.scope(environment).storedEventStore,
            settle: consumers.settler([`projection.${usersProjection.name}`]),
          },
          clock,
        ),
    },
    ...contractProviders(UsersService, USERS_CONTRACTS),
  ],
  exports: [UsersService, ...USERS_CONTRACTS.map((contract) => contract.token)],
})
export class UsersModule {}
