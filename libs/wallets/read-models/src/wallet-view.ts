import { fromMinorUnits } from '@cip/wallets/domain';

export type { WalletView } from '@cip/wallets/contract';
export { renderWallet } from '@cip/wallets/contract';

/** The ledger figures of the view, from the minor units an event carries. */
export const ledgerFields = (balance: number, held: number) => ({
  balance: fromMinorUnits(balance),
  availableBalance: fromMinorUnits(balance - held),
  pendingHolds: fromMinorUnits(held),
});
