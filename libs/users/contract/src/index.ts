export * from './user.types';
export * from './user-view';
export * from './users.api';
export * from './users.integration-events';
