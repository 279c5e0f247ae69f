export * from './user.types';
export * from './user.events';
export * from './user.commands';
export * from './user.decider';
export * from './unique-value.decider';
