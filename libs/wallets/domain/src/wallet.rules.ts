import { DomainError } from '@cip/shared/contracts';
import { amountTooLarge, fromMinorUnits, MAX_MINOR_UNITS } from './money';
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

/** Every amount a ledger command carries: a positive integer of minor units within MAX_MINOR_UNITS. */
export function requirePositive(amount: number, field = 'amount'): void {
  // First, so that 2^53 and beyond (no longer safe integers) are refused as too large, not as malformed.
  if (amount > MAX_MINOR_UNITS)
    throw amountTooLarge(`${field} exceeds the largest amount, ${usdc(MAX_MINOR_UNITS)}`, field);
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new DomainError('validation_error', `${field} must be a positive integer of minor units`, [
      { field, message: 'must be a positive integer of minor units' },
    ]);
  }
}

/**
 * The one posting helper: the owner and the ledger after a movement, as every money event carries them.
 * Every change of the balance or of the held amount goes through it, so this is where the bound is kept:
 * a movement that would take the balance, the held total or the available balance beyond
 * +-MAX_MINOR_UNITS is refused (`amount_too_large`, nothing recorded). By induction from an empty wallet,
 * every figure stays within the bound, so the sums computed from them (two figures or a figure and an
 * amount, each within the bound) are exact integers (see money.ts in the contract).
 */
export function posting(wallet: WalletRecord, balance: number, held: number) {
  const beyond = (figure: number) => Math.abs(figure) > MAX_MINOR_UNITS;
  if (beyond(balance) || beyond(held) || beyond(balance - held))
    throw amountTooLarge(
      `This movement would take the wallet's balance (${usdc(balance)}) or held funds (${usdc(held)}) ` +
        `beyond the largest the ledger holds, ${usdc(MAX_MINOR_UNITS)}`,
    );
  return { walletId: wallet.walletId, userId: wallet.userId, balance, held };
}

/**
 * A tolerance in minor units (an overdraft allowance): absent is 0, otherwise a non-negative integer
 * within MAX_MINOR_UNITS (a NaN would silently lift every limit it is compared with).
 */
export function requireAllowance(allowance: number | undefined, field = 'overdraftAllowance'): number {
  if (allowance === undefined || allowance === 0) return 0;
  requirePositive(allowance, field);
  return allowance;
}
