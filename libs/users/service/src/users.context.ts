import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { userLifecycleContract, usersContract } from '@cip/users/contract';
import { USERS_CONTROLLERS } from '@cip/users/http';
import { userPublicEvents, usersProjection } from '@cip/users/read-models';
import { UsersModule } from './users.module';

/** The users context, as the platform registry lists it. */
export const usersContext: ContextDefinition = {
  name: 'users',
  contracts: [usersContract, userLifecycleContract],
  module: UsersModule,
  readModels: [projectionReadModel(usersProjection)],
  publicEvents: [userPublicEvents],
  sagas: [],
  controllers: USERS_CONTROLLERS,
};
