export * from './card-authentications.projection';
export * from './card-authentication.public-events';
export * from './card-authentication-deadlines.projection';
