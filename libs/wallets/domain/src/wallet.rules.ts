import { DomainError } from '@cip/shared/contracts';
import { fromMinorUnits } from './money';
import type { WalletRecord, WalletState } from './wallet.state';

// ---------------------------------------------------------------------------------------------------
// What every wallet command checks, and the one way a movement is posted
// ---------------------------------------------------------------------------------------------------

export const usdc = (minor: number) => `${fromMinorUnits(minor)} USDC`;

export function existing(state: WalletState): WalletRecord {
  if (state.status === 'absent') throw new DomainError('not_found', 'Wallet was not found');
  if (state.status === 'provisioning_failed') {
    throw new DomainError(
      'create_wallet_error',
      `Wallet ${state.walletId} could not be provisioned: ${state.reason}`,
    );
  }
  return state;
}

export function notOnComplianceHold(wallet: WalletRecord, action: string): void {
  if (wallet.complianceHold) {
    throw new DomainError(
      'wallet_compliance_hold',
      `Wallet ${wallet.walletId} is under a compliance hold (${wallet.complianceHold.reason}): ${action} is blocked`,
    );
  }
}

export function requirePositive(amount: number, field = 'amount'): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new DomainError('validation_error', `${field} must be a positive integer of minor units`, [
      { field, message: 'must be a positive integer of minor units' },
    ]);
  }
}

/**
 * The one posting helper: the owner and the ledger after a movement, as every money event carries them.
 * Every change of the balance or of the held amount goes through it.
 */
export const posting = (wallet: WalletRecord, balance: number, held: number) => ({
  walletId: wallet.walletId,
  userId: wallet.userId,
  balance,
  held,
});
