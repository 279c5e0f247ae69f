export * from './card-authentications.projection';
export * from './card-authentication.public-events';
