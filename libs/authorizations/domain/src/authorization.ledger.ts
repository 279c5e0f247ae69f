import type { PlaceHoldInput } from '@cip/wallets/contract';
import type { AuthorizationRecord } from './authorization.state';

// ---------------------------------------------------------------------------------------------------
// What an authorization's events do to its wallet, as `WalletLedger` calls (the wallets contract) the
// service carries out in order after appending the event. Each is idempotent on its id in the ledger, so a
// service that dies half way simply runs the event's list again. The wallet is the authorization's.
//
// The ledger settles a hold once (`settleHold` closes it whole) and has no partial release, so keeping
// part of a hold is two calls: a forced hold of the part to keep under a new id (`<authorizationId>.<n>`),
// then the old hold settled or released. The new hold comes first: between the two calls the wallet holds
// more than it should, never less, so a concurrent payment can be declined for it but never overspend.
// ---------------------------------------------------------------------------------------------------

export type LedgerInstruction =
  | ({ op: 'placeHold' } & Pick<PlaceHoldInput, 'holdId' | 'amount' | 'force'>)
  | { op: 'releaseHold'; holdId: string }
  | { op: 'settleHold'; holdId: string; amount: number }
  | { op: 'refund'; refundId: string; amount: number }
  | { op: 'chargeFee'; feeId: string; amount: number };

/** The id of the hold numbered `sequence` of an authorization (0: the authorization's own id). */
export const holdIdOf = (authorizationId: string, sequence: number): string =>
  sequence === 0 ? authorizationId : `${authorizationId}.${sequence}`;

/** The id the fees of an authorization are charged under (once). */
export const feeIdOf = (authorizationId: string): string => `${authorizationId}.fees`;

/** The fees, charged once (with the first clearing). */
export const feeCharge = (authorizationId: string, feeTotal: number): LedgerInstruction[] =>
  feeTotal > 0 ? [{ op: 'chargeFee', feeId: feeIdOf(authorizationId), amount: feeTotal }] : [];

/**
 * Keeps `remaining` (plus `extra`, fees still to charge) held under a new forced hold, placed before the
 * old hold is settled or released (authorization.ledger.ts says why); nothing when nothing remains.
 */
export function keepHold(
  record: AuthorizationRecord,
  remaining: number,
  extra: number,
): { holdId: string | null; ledger: LedgerInstruction[] } {
  if (remaining === 0) return { holdId: null, ledger: [] };
  const holdId = holdIdOf(record.authorizationId, record.holdsPlaced);
  return { holdId, ledger: [{ op: 'placeHold', holdId, amount: remaining + extra, force: true }] };
}
