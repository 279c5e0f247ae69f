export * from './kyc-view';
export * from './kycs.projection';
export * from './kyc.public-events';
