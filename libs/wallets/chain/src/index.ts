export * from './chain.ports';
export { evmChainName, type EvmConnection } from './evm/evm-client';
export * from './evm/evm-deposit-watcher';
export * from './evm/evm-payout';
