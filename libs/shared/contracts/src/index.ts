export * from './api-errors';
export * from './caller';
export * from './decider';
export * from './environment';
export * from './integration-event';
export * from './public-events';
export * from './context-contract';
export * from './pages';
