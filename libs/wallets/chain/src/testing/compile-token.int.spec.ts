import { compileTestUsdc } from './compile-token';
import { TEST_USDC_ABI, TEST_USDC_BYTECODE } from './test-usdc.artifact';

describe('test token artifact', () => {
  it('matches its Solidity source (regenerate with compile-token.ts after editing it)', () => {
    expect(compileTestUsdc()).toEqual({ abi: TEST_USDC_ABI, bytecode: TEST_USDC_BYTECODE });
  });
});
