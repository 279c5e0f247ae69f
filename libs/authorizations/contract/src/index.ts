export * from './authorization.types';
export * from './authorization-view';
export * from './authorizations.api';
export * from './authorizations.integration-events';
export * from './program-authorization';
export * from './authorization-decisioning';
