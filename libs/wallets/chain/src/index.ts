export * from './chain.ports';
export * from './hd-deposit-address-deriver';
export * from './simulated-chain';
