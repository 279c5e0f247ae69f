import type { LedgerInstruction } from '@cip/authorizations/domain';
import { DomainError } from '@cip/shared/contracts';
import type { LedgerContext, WalletLedger } from '@cip/wallets/contract';

// ---------------------------------------------------------------------------------------------------
// The one place the authorizations context moves money: each event's `ledger` instructions carried out on
// the authorization's wallet, in order, through the wallets context's `WalletLedger`; and the two calls
// the network path makes outside an event (the hold placed before a decision is recorded, and the release
// of such a hold whose decision never was). Each call is
// idempotent on its id in the ledger, so running an event's list again (a restart, a retried message)
// changes nothing.
// ---------------------------------------------------------------------------------------------------

export async function executeLedger(
  ledger: WalletLedger,
  context: LedgerContext,
  walletId: string,
  instructions: readonly LedgerInstruction[],
  reference: string,
  /** The card the authorization was made with, kept with each movement it posts (`/v1/transactions?cardId=`). */
  cardId?: string,
): Promise<void> {
  const card = cardId ? { cardId } : {};
  for (const step of instructions) {
    switch (step.op) {
      case 'placeHold':
        await ledger.placeHold(context, walletId, {
          holdId: step.holdId,
          amount: step.amount,
          reference,
          ...card,
          ...(step.force ? { force: true } : {}),
        });
        break;
      case 'settleHold':
        await ledger.settleHold(context, walletId, step.holdId, step.amount, {
          clearingId: step.clearingId,
          final: step.final,
          overdraftAllowance: step.overdraftAllowance,
        });
        break;
      case 'releaseHold':
        await ledger.releaseHold(context, walletId, step.holdId, {
          reversalId: step.reversalId,
          ...(step.amount === undefined ? {} : { amount: step.amount }),
        });
        break;
      case 'expireHold':
        await ledger.expireHold(context, walletId, step.holdId);
        break;
      case 'forcePost':
        await ledger.forcePost(context, walletId, {
          postingId: step.postingId,
          amount: step.amount,
          reference,
          ...card,
        });
        break;
      case 'refund':
        await ledger.refund(context, walletId, {
          refundId: step.refundId,
          amount: step.amount,
          reference,
          ...card,
        });
        break;
      case 'chargeFee':
        await ledger.chargeFee(context, walletId, {
          feeId: step.feeId,
          amount: step.amount,
          reference,
          ...card,
        });
        break;
      default: {
        const unknown: never = step;
        throw new Error(`Unknown ledger instruction ${(unknown as { op: string }).op}`);
      }
    }
  }
}

/**
 * The hold of a payment about to be approved, placed before the decision is recorded and answered (its id
 * is the authorization's, as the decision event's `placeHold` then finds it placed). `insufficient_funds`
 * when the ledger refuses it for funds (a concurrent spend took them): the payment is declined.
 */
export async function holdForDecision(
  ledger: WalletLedger,
  context: LedgerContext,
  walletId: string,
  hold: { holdId: string; amount: number; cardId?: string },
): Promise<'held' | 'insufficient_funds'> {
  try {
    await ledger.placeHold(context, walletId, { ...hold, reference: hold.holdId });
    return 'held';
  } catch (error) {
    if (error instanceof DomainError && error.code === 'insufficient_funds') return 'insufficient_funds';
    throw error;
  }
}

/**
 * Releases a hold placed for a decision that was never recorded (the issuer died in between, and the
 * network reversed the transaction); nothing when no such hold exists. Whether one existed (released now or
 * before: the release is idempotent on the hold's id).
 */
export async function releaseUnrecordedHold(
  ledger: WalletLedger,
  context: LedgerContext,
  walletId: string,
  holdId: string,
): Promise<boolean> {
  try {
    await ledger.releaseHold(context, walletId, holdId);
    return true;
  } catch (error) {
    // No hold under its id: the issuer never got as far as placing one. Nothing to release.
    if (!(error instanceof DomainError) || error.code !== 'not_found') throw error;
    return false;
  }
}
