import type { PlatformConfig } from '@cip/shared/runtime';
import { SIMULATED_SETTLEMENT_ADDRESS } from '@cip/wallets/chain';
import type { SettlementAddressOf } from './settlement-batches';

/**
 * The settlement address port wired to the configuration: one address per environment for every program
 * (SETTLEMENT_ADDRESS_<ENV>), and on the sandbox's simulated chain a default one. Per-program settlement
 * addresses will replace this (the program's settings); the port stays.
 */
export function configuredSettlementAddresses(
  config: Pick<PlatformConfig, 'settlement' | 'chains'>,
): SettlementAddressOf {
  return (environment) =>
    config.settlement.addresses[environment] ??
    (environment === 'sandbox' && !config.chains.sandbox ? SIMULATED_SETTLEMENT_ADDRESS : null);
}
