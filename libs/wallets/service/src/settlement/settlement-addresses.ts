import type { ProgramRules } from '@cip/shared/contracts';
import type { PlatformConfig } from '@cip/shared/runtime';
import { SIMULATED_SETTLEMENT_ADDRESS } from '@cip/wallets/chain';
import type { SettlementAddressOf } from './settlement-batches';

/**
 * The settlement address port wired to the configuration: one address per environment for every program
 * without its own (SETTLEMENT_ADDRESS_<ENV>), and on the sandbox's simulated chain a default one.
 */
export function configuredSettlementAddresses(
  config: Pick<PlatformConfig, 'settlement' | 'chains'>,
): SettlementAddressOf {
  return (environment) =>
    config.settlement.addresses[environment] ??
    (environment === 'sandbox' && !config.chains.sandbox ? SIMULATED_SETTLEMENT_ADDRESS : null);
}

/**
 * The program's settlement address (its settings: `cli distributors configure --settlement-address`), else
 * `fallback` (the configured one). Read at each batch, so a change applies to the next one.
 */
export function programSettlementAddresses(
  programs: { programOf(distributorId: string): Pick<ProgramRules, 'authorization'> | null } | null,
  fallback: SettlementAddressOf,
): SettlementAddressOf {
  return (environment, distributorId) =>
    programs?.programOf(distributorId)?.authorization?.settlementAddress ??
    fallback(environment, distributorId);
}
