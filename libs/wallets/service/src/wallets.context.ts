import { ContextDefinition, projectionReadModel } from '@cip/shared/infrastructure';
import { walletPublicEvents, walletsProjection } from '@cip/wallets/read-models';
import { walletProvisioningSaga } from './sagas/wallet-provisioning.saga';
import { walletTransactionsReadModel } from './wallet-transactions.read-model';
import { WalletsModule } from './wallets.module';

/** The wallets context, as the platform registry lists it. */
export const walletsContext: ContextDefinition = {
  name: 'wallets',
  contracts: [],
  module: WalletsModule,
  readModels: [projectionReadModel(walletsProjection), walletTransactionsReadModel],
  publicEvents: [walletPublicEvents],
  sagas: [walletProvisioningSaga],
  // Still mounted by the gateway lib until they move into libs/wallets/http (with the wallets contract).
  controllers: [],
};
