import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { userPersonalData } from '@cip/users/domain';
import { USERS_CONTROLLERS } from '@cip/users/http';
import { userPublicEvents, usersProjection } from '@cip/users/read-models';
import { USERS_CONTRACTS, UsersModule } from './users.module';

/** The users context, as the platform registry lists it. */
export const usersContext: ContextDefinition = {
  name: 'users',
  contracts: USERS_CONTRACTS,
  module: UsersModule,
  readModels: [projectionReadModel(usersProjection)],
  publicEvents: [userPublicEvents],
  sagas: [],
  controllers: USERS_CONTROLLERS,
  personalData: userPersonalData,
};
