export * from './kyc.types';
export * from './kyc.events';
export * from './kyc.commands';
export * from './kyc.decider';
export * from './kyc-approval.policy';
