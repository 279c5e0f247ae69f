export * from './in-memory-ports';
export * from './local-chain';
export { TEST_USDC_ABI } from './test-usdc.artifact';
