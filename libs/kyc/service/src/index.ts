export * from './kyc.api';
export * from './kyc.ports';
export * from './kyc.service';
export * from './kyc.module';
export * from './kyc-expiry.scheduler';
export * from './sandbox-provider/sandbox-identity-provider';
export * from './sandbox-provider/hosted-form';
export * from './sandbox-provider/hosted-page';
