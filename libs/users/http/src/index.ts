import { UsersController } from './users.controller';

export * from './users.controller';
export * from './users.dto';

/** The users context's HTTP surface (distributor API). */
export const USERS_CONTROLLERS = [UsersController];
