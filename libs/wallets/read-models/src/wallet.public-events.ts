import type { PublicEventDraft, PublicEventMapper } from '@cip/shared/read-store';
import { isLedgerEvent, walletEvents } from '@cip/wallets/domain';
import type { WalletView } from './wallet-view';
import { walletsProjection } from './wallets.projection';

/**
 * Wallet domain events -> public Events (spec part 6): `wallet.created`, `balance.updated` on every
 * change of the balance or the holds, `blockchainTransaction.confirmed` for on-chain movements (amount in
 * minor units), `withdrawal.confirmed` / `withdrawal.rejected`, and the compliance-hold status changes.
 */
export const walletPublicEvents: PublicEventMapper<WalletView> = {
  topic: 'wlt',
  snapshot: walletsProjection,
  toPublicEvents(recorded, snapshot): PublicEventDraft[] {
    const event = walletEvents.read(recorded);
    if (event.type === 'WalletProvisioningFailed') return [];
    const { walletId } = event.data;
    const userId = snapshot?.userId;
    const onWallet = { eventTargetId: walletId, userId };
    const drafts: PublicEventDraft[] = [];
    switch (event.type) {
      case 'WalletCreated':
        return [{ ...onWallet, eventName: 'wallet.created' }];
      case 'WalletComplianceHoldPlaced':
        return [
          { ...onWallet, eventName: 'wallet.complianceHoldPlaced', fields: { reason: event.data.reason } },
        ];
      case 'WalletComplianceHoldReleased':
        return [
          { ...onWallet, eventName: 'wallet.complianceHoldReleased', fields: { reason: event.data.reason } },
        ];
      case 'WalletDepositCredited':
        drafts.push({
          eventName: 'blockchainTransaction.confirmed',
          eventTargetId: walletId,
          userId,
          fields: {
            walletId,
            type: 'deposit',
            amount: event.data.amount,
            transactionHash: event.data.transactionHash,
            blockNumber: event.data.blockNumber,
          },
        });
        break;
      case 'WithdrawalConfirmed':
        drafts.push(
          {
            eventName: 'withdrawal.confirmed',
            eventTargetId: event.data.withdrawalId,
            userId,
            fields: {
              walletId,
              blockHeight: event.data.blockHeight,
              rawTxReceipt: event.data.rawTxReceipt,
              hash: event.data.hash,
            },
          },
          {
            eventName: 'blockchainTransaction.confirmed',
            eventTargetId: walletId,
            userId,
            fields: {
              walletId,
              type: 'withdraw',
              amount: event.data.amount,
              transactionHash: event.data.hash,
              blockNumber: event.data.blockHeight,
            },
          },
        );
        break;
      case 'WithdrawalRejected':
        drafts.push({
          eventName: 'withdrawal.rejected',
          eventTargetId: event.data.withdrawalId,
          userId,
          fields: { walletId, reason: event.data.reason, hash: event.data.hash },
        });
        break;
      default:
        break;
    }
    if (isLedgerEvent(event)) drafts.push({ ...onWallet, eventName: 'balance.updated' });
    return drafts;
  },
};
