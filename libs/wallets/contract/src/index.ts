export * from './money';
export * from './wallet-view';
export * from './transaction';
export * from './wallets.api';
export * from './wallets.integration-events';
