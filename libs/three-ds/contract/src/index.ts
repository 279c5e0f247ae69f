export * from './emv-3ds';
export * from './emv-3ds.schemas';
export * from './card-authentication.types';
export * from './card-authentication-view';
export * from './three-ds.api';
export * from './three-ds.integration-events';
export * from './three-ds-verification.api';
