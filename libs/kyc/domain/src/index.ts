export * from './kyc.types';
export * from './kyc.events';
export * from './kyc.commands';
export * from './kyc.decider';
export * from './kyc-approval.policy';
export * from './kyc-start-claims.decider';
