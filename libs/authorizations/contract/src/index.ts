export * from './authorization.types';
export * from './authorization-view';
export * from './authorizations.api';
export * from './authorizations.integration-events';
export * from './authorization-decisioning';
