export * from './create-http-app';
export * from './gateway-http.module';
export * from './pipeline/error-responses';
export * from './pipeline/gateway-pipeline';
export { WALLETS_CONTROLLERS } from './wallets/wallets.controller';
