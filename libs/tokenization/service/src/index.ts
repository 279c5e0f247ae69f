export * from './tokenization.service';
export * from './tokenization.module';
export * from './tokenization.context';
export * from './provisioning/apple-pay-pass-data';
export * from './provisioning/google-opaque-payment-card';
export * from './provisioning/google-pay-keys';
export * from './provisioning/apple-pay-test-chain';
export * from './sagas/card-status-tokens.saga';
