// USDC amounts are part of the wallets context's published language: they live in its contract.
export { fromMinorUnits, minorFromBigInt, toMinorUnits, USDC, USDC_DECIMALS } from '@cip/wallets/contract';
