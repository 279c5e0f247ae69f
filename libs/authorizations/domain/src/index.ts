export * from './authorization.types';
export * from './money';
export * from './decision';
export * from './authorization.ledger';
export * from './authorization.events';
export * from './authorization.commands';
export * from './authorization.state';
export * from './authorization.decider';
