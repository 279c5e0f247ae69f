export * from './kyc.types';
export * from './kyc-view';
export * from './hosted-form';
export * from './kyc.api';
export * from './kyc.integration-events';
