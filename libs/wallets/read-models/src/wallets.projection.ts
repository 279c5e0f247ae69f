import type { ProjectedEvent, Projection } from '@cip/shared/read-store';
import { isLedgerEvent, USDC, walletEvents } from '@cip/wallets/domain';
import { ledgerFields, WalletView } from './wallet-view';

export const WALLETS_COLLECTION = 'wallets';

/** The `wallets` read model: one document per wallet stream, for reads, lists and deposit-address lookups. */
export const walletsProjection: Projection<WalletView> = {
  name: 'wallets',
  collection: WALLETS_COLLECTION,
  topics: ['wlt'],
  // The deposit watcher asks, for every recipient of the token on chain, whose deposit address it is.
  indexes: ['depositAddress'],
  evolve(doc: WalletView | null, recorded: ProjectedEvent): WalletView | null {
    const event = walletEvents.read(recorded);
    switch (event.type) {
      case 'WalletCreated':
        return {
          id: event.data.walletId,
          distributorId: event.data.distributorId,
          userId: event.data.userId,
          status: 'active',
          depositAddress: event.data.depositAddress,
          chain: event.data.chain,
          currency: USDC,
          ...ledgerFields(0, 0),
          complianceHold: null,
          error: null,
          createdAt: event.data.createdAt,
          updatedAt: event.data.createdAt,
        };
      case 'WalletProvisioningFailed':
        return {
          id: event.data.walletId,
          distributorId: event.data.distributorId,
          userId: event.data.userId,
          status: 'provisioning_failed',
          depositAddress: null,
          chain: null,
          currency: USDC,
          ...ledgerFields(0, 0),
          complianceHold: null,
          error: {
            code: 'create_wallet_error',
            message: `The wallet could not be provisioned: ${event.data.reason}`,
          },
          createdAt: doc?.createdAt ?? event.data.at,
          updatedAt: event.data.at,
        };
      case 'WalletComplianceHoldPlaced':
        return (
          doc && {
            ...doc,
            complianceHold: { reason: event.data.reason, since: event.data.at },
            updatedAt: event.data.at,
          }
        );
      case 'WalletComplianceHoldReleased':
        return doc && { ...doc, complianceHold: null, updatedAt: event.data.at };
      default:
        if (!doc || !isLedgerEvent(event)) return doc;
        return { ...doc, ...ledgerFields(event.data.balance, event.data.held), updatedAt: event.data.at };
    }
  },
};
