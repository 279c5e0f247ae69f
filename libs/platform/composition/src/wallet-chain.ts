import type { Environment } from '@cip/shared/contracts';
import type { EvmChainConfig, Logger, PlatformConfig } from '@cip/shared/runtime';
import {
  EvmDepositWatcher,
  evmChainName,
  EvmPayout,
  HdDepositAddressDeriver,
  loadDepositSeed,
  PayoutJournal,
  PayoutPort,
  SimulatedChain,
  SimulatedPayout,
  UnconfiguredPayout,
} from '@cip/wallets/chain';
import { configuredSettlementAddresses, type WalletsModuleOptions } from '@cip/wallets/service';

/**
 * The wallets context's chain adapters, per environment (either runtime: the wallets service or the platform):
 * - deposit addresses from the environment's HD seed (WALLET_HD_SEED_<ENV>, or generated under
 *   DATA_DIR/secrets on first start);
 * - with CHAIN_RPC_URL_<ENV> set, an EVM deposit watcher on that chain, and EVM payouts from
 *   HOT_WALLET_PRIVATE_KEY_<ENV> journaled on the wallet streams;
 * - without a chain: sandbox payouts on the simulated chain, production withdrawals rejected;
 * - settlement batches through the same payout adapters, to SETTLEMENT_ADDRESS_<ENV> every
 *   SETTLEMENT_INTERVAL_MS.
 */
export function walletChainOptions(
  config: Pick<PlatformConfig, 'dataDir' | 'walletHdSeeds' | 'chains' | 'settlement'>,
  logger: Logger,
): WalletsModuleOptions {
  const seedOf = (environment: Environment) =>
    loadDepositSeed({ dataDir: config.dataDir, environment, fromEnv: config.walletHdSeeds?.[environment] });
  return {
    settlement: {
      settlementAddressOf: configuredSettlementAddresses(config),
      intervalMs: config.settlement.intervalMs,
    },
    chain: (environment, { simulated, payoutJournal }) => {
      const evm = config.chains[environment];
      return {
        deriver: new HdDepositAddressDeriver(
          seedOf(environment),
          evm ? evmChainName(evm.chainId) : simulated.name,
        ),
        payout: payoutFor(environment, evm, simulated, payoutJournal, logger),
      };
    },
    watcher: (environment, sink, checkpoint) => {
      const evm = config.chains[environment];
      if (!evm) return null;
      return new EvmDepositWatcher(
        {
          rpcUrl: evm.rpcUrl,
          chainId: evm.chainId,
          tokenAddress: evm.usdcContractAddress,
          confirmations: evm.confirmations,
          pollIntervalMs: evm.pollIntervalMs,
          maxBlockRange: evm.maxBlockRange,
          startBlock: evm.startBlock,
        },
        sink,
        checkpoint,
        logger.child({ component: 'deposit-watcher', environment }),
      );
    },
  };
}

function payoutFor(
  environment: Environment,
  evm: EvmChainConfig | undefined,
  simulated: SimulatedChain,
  journal: PayoutJournal,
  logger: Logger,
): PayoutPort {
  if (evm?.hotWalletPrivateKey) {
    return new EvmPayout(
      {
        rpcUrl: evm.rpcUrl,
        chainId: evm.chainId,
        tokenAddress: evm.usdcContractAddress,
        hotWalletPrivateKey: evm.hotWalletPrivateKey,
      },
      journal,
      logger.child({ component: 'payout', environment }),
    );
  }
  if (evm)
    return new UnconfiguredPayout(evmChainName(evm.chainId), 'withdrawals are not enabled on this chain yet');
  if (environment === 'sandbox') return new SimulatedPayout(simulated);
  return new UnconfiguredPayout(simulated.name, 'withdrawals are not enabled: no chain is configured');
}
