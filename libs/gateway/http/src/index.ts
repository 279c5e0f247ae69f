export * from './create-http-app';
export * from './gateway-http.module';
export * from './pipeline/error-responses';
export * from './pipeline/gateway-pipeline';
export * from './system/system.controller';
export { WALLETS_CONTROLLERS } from './wallets/wallets.controller';
export { KYC_CONTROLLERS } from './kyc/kyc.controller';
export { WEBHOOKS_CONTROLLERS } from './webhooks/webhooks.controller';
