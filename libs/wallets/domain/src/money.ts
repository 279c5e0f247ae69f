// USDC amounts are part of the wallets context's published language: they live in its contract.
export {
  amountTooLarge,
  FIAT_DECIMALS,
  fromMinorUnits,
  MAX_MINOR_UNITS,
  minorFromBigInt,
  toMinorUnits,
  USDC,
  USDC_DECIMALS,
} from '@cip/wallets/contract';
