export * from './tokens.projection';
export * from './token.public-events';
