export * from './authorizations.projection';
export * from './authorization.public-events';
export * from './clearing-exceptions.projection';
