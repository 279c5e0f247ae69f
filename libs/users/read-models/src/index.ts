export * from './user-view';
export * from './users.projection';
export * from './user.public-events';
