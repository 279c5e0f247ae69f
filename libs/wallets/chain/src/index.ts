export * from './chain.ports';
export * from './hd-deposit-address-deriver';
export * from './simulated-chain';
export { evmChainName, type EvmConnection } from './evm/evm-client';
export * from './evm/evm-deposit-watcher';
export * from './evm/evm-payout';
