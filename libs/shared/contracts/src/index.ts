export * from './api-errors';
export * from './decider';
export * from './environment';
export * from './public-events';
