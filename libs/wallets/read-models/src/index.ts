export * from './wallet-view';
export * from './wallets.projection';
export * from './wallet-transactions';
export * from './wallet.public-events';
export * from './settlement.public-events';
