import type { PlatformConfig } from '@cip/shared/runtime';
import { HdDepositAddressDeriver, loadDepositSeed, SimulatedPayout } from '@cip/wallets/chain';
import type { WalletsModuleOptions } from '@cip/wallets/service';

/**
 * The wallets context's chain adapters in the embedded runtime: deposit addresses from each environment's
 * HD seed (WALLET_HD_SEED_<ENV>, or generated under DATA_DIR/secrets on first start), payouts on the
 * simulated chain, and no deposit watcher. The EVM adapters (CHAIN_RPC_URL, USDC_CONTRACT_ADDRESS,
 * CHAIN_CONFIRMATIONS, HOT_WALLET_PRIVATE_KEY) plug in here.
 */
export function embeddedWalletChain(
  config: Pick<PlatformConfig, 'dataDir' | 'walletHdSeeds' | 'chain'>,
): WalletsModuleOptions {
  return {
    chain: (environment, { simulated }) => ({
      deriver: new HdDepositAddressDeriver(
        loadDepositSeed({
          dataDir: config.dataDir,
          environment,
          fromEnv: config.walletHdSeeds?.[environment],
        }),
        config.chain?.name ?? simulated.name,
      ),
      payout: new SimulatedPayout(simulated),
    }),
  };
}
