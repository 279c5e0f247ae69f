export * from './authorizations.projection';
export * from './authorization.public-events';
