import type { StoredShape, Upcaster } from '@cip/shared/contracts';
import type { PlaceHoldInput } from '@cip/wallets/contract';

// ---------------------------------------------------------------------------------------------------
// What an authorization's events do to its wallet, as `WalletLedger` calls (the wallets contract) the
// service carries out in order after appending the event. One network message is one operation on the
// authorization's hold (a clearing, full or partial, within the program's tolerance; a reversal, full or
// partial; the expiry) or one posting without a hold (a force post, a late clearing, a refund), under an
// id of its own, so running an event's list again (a restart, a retried message, a clearing file imported
// again) changes nothing. The fees follow the first clearing once (`chargeFee`, and out of the hold they
// were held in when the hold stays open).
// ---------------------------------------------------------------------------------------------------

export type LedgerInstruction =
  | ({ op: 'placeHold' } & Pick<PlaceHoldInput, 'holdId' | 'amount' | 'force'>)
  /** `final`: releases what the hold still holds and closes it. */
  | {
      op: 'settleHold';
      holdId: string;
      amount: number;
      clearingId: string;
      final: boolean;
      overdraftAllowance: number;
    }
  /** Without `amount`: everything the hold still holds (a full reversal, which closes it). */
  | { op: 'releaseHold'; holdId: string; reversalId: string; amount?: number }
  | { op: 'expireHold'; holdId: string }
  | { op: 'forcePost'; postingId: string; amount: number }
  | { op: 'refund'; refundId: string; amount: number }
  | { op: 'chargeFee'; feeId: string; amount: number };

/**
 * The id of the posting (clearing or reversal) a network message makes: `sequence` is the message's rank
 * on the authorization (the number of messages it applied before), unique on it and fixed once recorded.
 */
export const postingIdOf = (
  authorizationId: string,
  kind: 'clearing' | 'reversal',
  sequence: number,
): string => `${authorizationId}.${kind}.${sequence}`;

/** The id the fees of an authorization are charged under (once). */
export const feeIdOf = (authorizationId: string): string => `${authorizationId}.fees`;

/** The id under which the fees, once charged, leave the hold that still held them. */
const feeReleaseIdOf = (authorizationId: string): string => `${authorizationId}.fees.released`;

/**
 * The fees, charged once (with the first clearing). The hold held them with the payment: when it stays
 * open (a partial clearing), they leave it under their own reversal id, after the charge, so the wallet
 * holds too much for a moment, never too little; a hold the clearing closes releases them with the rest.
 */
export function feeCharge(
  authorizationId: string,
  feeTotal: number,
  openHoldId: string | null,
): LedgerInstruction[] {
  if (feeTotal <= 0) return [];
  const charge: LedgerInstruction = { op: 'chargeFee', feeId: feeIdOf(authorizationId), amount: feeTotal };
  if (openHoldId === null) return [charge];
  return [
    charge,
    { op: 'releaseHold', holdId: openHoldId, reversalId: feeReleaseIdOf(authorizationId), amount: feeTotal },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Events recorded before the ledger had partial operations: their lists settled or released a hold whole
// (`{op: 'settleHold', holdId, amount}`, `{op: 'releaseHold', holdId}`) and kept any rest under a forced
// hold of its own. Such a list runs again when its event is re-executed (a retry, or a later message on
// the authorization), so it is read as the calls the ledger made of it then: a final clearing or a full
// release under the hold's own id (what the ledger uses when no posting id is given), the clearing with
// no bound above the hold (the old ledger took any amount; the decision had bounded it), and the release
// of an expiry as the hold's expiry. Each is a no-op on a hold that it closed already.
// ---------------------------------------------------------------------------------------------------

type StoredInstruction = Record<string, unknown> & { op: string; holdId?: string; amount?: number };

const isOldShape = (step: StoredInstruction): boolean =>
  (step.op === 'settleHold' && step.clearingId === undefined) ||
  (step.op === 'releaseHold' && step.reversalId === undefined);

function upcastInstruction(step: StoredInstruction, expiry: boolean): StoredInstruction {
  if (!isOldShape(step)) return step;
  const holdId = step.holdId as string;
  if (step.op === 'releaseHold')
    return expiry ? { op: 'expireHold', holdId } : { op: 'releaseHold', holdId, reversalId: holdId };
  const amount = step.amount as number;
  return { op: 'settleHold', holdId, amount, clearingId: holdId, final: true, overdraftAllowance: amount };
}

/** Lifts the ledger list of an event recorded before partial operations (see above); others as they are. */
export const upcastLedgerInstructions: Upcaster = (event: StoredShape): StoredShape => {
  const ledger = event.data.ledger as StoredInstruction[] | undefined;
  if (!Array.isArray(ledger) || !ledger.some(isOldShape)) return event;
  const expiry = event.type === 'AuthorizationExpired';
  return { ...event, data: { ...event.data, ledger: ledger.map((step) => upcastInstruction(step, expiry)) } };
};
