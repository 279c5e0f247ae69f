export * from './card-authentication.events';
export * from './card-authentication.commands';
export * from './card-authentication.decider';
export * from './acs-rules';
export * from './authentication-value';
