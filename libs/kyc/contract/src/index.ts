export * from './kyc.integration-events';
