import type { LedgerInstruction } from '@cip/authorizations/domain';
import type { LedgerContext, WalletLedger } from '@cip/wallets/contract';

// ---------------------------------------------------------------------------------------------------
// The one place the authorizations context moves money: each event's `ledger` instructions carried out on
// the authorization's wallet, in order, through the wallets context's `WalletLedger`. Each call is
// idempotent on its id in the ledger, so running an event's list again (a restart, a retried message)
// changes nothing. When the ledger gains partial settle / partial release / expireHold / forcePost, the
// domain's two-call forms (a forced hold of the rest, then settle or release) map onto them here.
// ---------------------------------------------------------------------------------------------------

export async function executeLedger(
  ledger: WalletLedger,
  context: LedgerContext,
  walletId: string,
  instructions: readonly LedgerInstruction[],
  reference: string,
): Promise<void> {
  for (const step of instructions) {
    switch (step.op) {
      case 'placeHold':
        await ledger.placeHold(context, walletId, {
          holdId: step.holdId,
          amount: step.amount,
          reference,
          ...(step.force ? { force: true } : {}),
        });
        break;
      case 'releaseHold':
        await ledger.releaseHold(context, walletId, step.holdId);
        break;
      case 'settleHold':
        await ledger.settleHold(context, walletId, step.holdId, step.amount);
        break;
      case 'refund':
        await ledger.refund(context, walletId, { refundId: step.refundId, amount: step.amount, reference });
        break;
      case 'chargeFee':
        await ledger.chargeFee(context, walletId, { feeId: step.feeId, amount: step.amount, reference });
        break;
      default: {
        const unknown: never = step;
        throw new Error(`Unknown ledger instruction ${(unknown as { op: string }).op}`);
      }
    }
  }
}
