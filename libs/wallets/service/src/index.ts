export * from './wallets.service';
export * from './wallets.module';
export * from './wallets.context';
export * from './sagas/wallet-provisioning.saga';
export * from './chain-bindings';
export * from './wallet-transactions.read-model';
export * from './withdrawal-payouts';
export * from './embedded-wallets';
