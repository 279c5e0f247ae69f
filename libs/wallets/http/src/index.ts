import { SimulateDepositController } from './wallet-simulation.controller';
import { TransactionsController, WalletsController } from './wallets.controller';

export * from './wallets.dto';

/** The wallets context's HTTP surface, by audience: distributors (wallets, transactions) and sandbox simulations. */
export const WALLETS_CONTROLLERS = [WalletsController, TransactionsController, SimulateDepositController];
