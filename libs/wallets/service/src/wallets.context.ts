import { WALLETS_CONTROLLERS } from '@cip/wallets/http';
import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { settlementPublicEvents, walletPublicEvents, walletsProjection } from '@cip/wallets/read-models';
import { walletProvisioningSaga } from './sagas/wallet-provisioning.saga';
import { walletTransactionsReadModel } from './wallet-transactions.read-model';
import { WALLETS_CONTRACTS, WalletsModule } from './wallets.module';

/** The wallets context, as the platform registry lists it. */
export const walletsContext: ContextDefinition = {
  name: 'wallets',
  contracts: WALLETS_CONTRACTS,
  module: WalletsModule,
  readModels: [projectionReadModel(walletsProjection), walletTransactionsReadModel],
  publicEvents: [walletPublicEvents, settlementPublicEvents],
  sagas: [walletProvisioningSaga],
  controllers: WALLETS_CONTROLLERS,
};
