export * from './card-vaults';
export * from './wallet-chain';
export * from './context-options';
export * from './public-addresses';
export * from './platform-service-app';
