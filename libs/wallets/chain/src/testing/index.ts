export * from './deposit-latency';
export * from './in-memory-ports';
export * from './local-chain';
export * from './rpc-proxy';
export { TEST_USDC_ABI } from './test-usdc.artifact';
