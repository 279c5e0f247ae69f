export * from './api-errors';
export * from './environment';
export * from './public-events';
