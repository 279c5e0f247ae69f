export * from './distributor.types';
export * from './distributor.events';
export * from './distributor.decider';
