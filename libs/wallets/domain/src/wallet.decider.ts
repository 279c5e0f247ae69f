import type { Decider } from '@cip/shared/contracts';
import type { CreateWallet, RecordProvisioningFailure, WalletCommand } from './wallet.commands';
import { walletEvents, type WalletEvent } from './wallet.events';
import {
  chargeFee,
  creditDeposit,
  expireHold,
  forcePost,
  placeHold,
  refund,
  refuseDeposit,
  releaseHold,
  settleHold,
} from './wallet.ledger';
import { existing } from './wallet.rules';
import { evolveWallet, isWallet, WalletState } from './wallet.state';
import { confirmWithdrawal, journalPayout, rejectWithdrawal, requestWithdrawal } from './wallet.withdrawals';

export * from './wallet.state';

// ---------------------------------------------------------------------------------------------------
// Decide: one function per command (creation here; postings in wallet.ledger.ts, withdrawals in
// wallet.withdrawals.ts), the command switch exhaustive
// ---------------------------------------------------------------------------------------------------

function createWallet({ data }: CreateWallet, state: WalletState): WalletEvent[] {
  if (isWallet(state)) return [];
  return [
    {
      type: 'WalletCreated',
      data: {
        walletId: data.walletId,
        userId: data.userId,
        distributorId: data.distributorId,
        depositAddress: data.depositAddress,
        addressIndex: data.addressIndex,
        chain: data.chain,
        currency: 'USDC',
        createdAt: data.now,
      },
    },
  ];
}

function recordProvisioningFailure({ data }: RecordProvisioningFailure, state: WalletState): WalletEvent[] {
  if (isWallet(state)) return [];
  return [
    {
      type: 'WalletProvisioningFailed',
      data: {
        walletId: data.walletId,
        userId: data.userId,
        distributorId: data.distributorId,
        reason: data.reason,
        at: data.now,
      },
    },
  ];
}

export function decideWallet(command: WalletCommand, state: WalletState): WalletEvent[] {
  switch (command.type) {
    case 'CreateWallet':
      return createWallet(command, state);
    case 'RecordProvisioningFailure':
      return recordProvisioningFailure(command, state);
    case 'CreditDeposit':
      return creditDeposit(command, state);
    case 'RefuseDeposit':
      return refuseDeposit(command, state);
    case 'PlaceHold':
      return placeHold(command, state);
    case 'ReleaseHold':
      return releaseHold(command, state);
    case 'SettleHold':
      return settleHold(command, state);
    case 'ExpireHold':
      return expireHold(command, state);
    case 'ForcePost':
      return forcePost(command, state);
    case 'Refund':
      return refund(command, state);
    case 'ChargeFee':
      return chargeFee(command, state);
    case 'RequestWithdrawal':
      return requestWithdrawal(command, state);
    case 'ConfirmWithdrawal':
      return confirmWithdrawal(command, state);
    case 'RejectWithdrawal':
      return rejectWithdrawal(command, state);
    case 'JournalPayout':
      return journalPayout(command, state);
    case 'PlaceComplianceHold': {
      const wallet = existing(state);
      if (wallet.complianceHold) return [];
      return [
        {
          type: 'WalletComplianceHoldPlaced',
          data: { walletId: wallet.walletId, reason: command.data.reason, at: command.data.now },
        },
      ];
    }
    case 'ReleaseComplianceHold': {
      const wallet = existing(state);
      if (!wallet.complianceHold) return [];
      return [
        {
          type: 'WalletComplianceHoldReleased',
          data: { walletId: wallet.walletId, reason: command.data.reason, at: command.data.now },
        },
      ];
    }
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as WalletCommand).type}`);
    }
  }
}

export const walletDecider: Decider<WalletCommand, WalletEvent, WalletState> = {
  decide: decideWallet,
  evolve: evolveWallet,
  initialState: () => ({ status: 'absent' }),
  events: walletEvents,
};
