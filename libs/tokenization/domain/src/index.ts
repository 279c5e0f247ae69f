export * from './token.types';
export * from './token.events';
export * from './token.commands';
export * from './token.decider';
