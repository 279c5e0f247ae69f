import { fromMinorUnits } from '@cip/wallets/contract';
import { mccGroupHolds } from './mcc-groups';
import {
  SPENDING_LIMIT_INTERVALS,
  type SpendingControls,
  type SpendingLimitInterval,
} from './spending-controls.types';
import { windowOf } from './spending-windows';

// ---------------------------------------------------------------------------------------------------
// The decision the authorization path asks of a card's controls: pure, so the network link and the sandbox
// simulation decide alike and the tests need no clock.
// ---------------------------------------------------------------------------------------------------

/**
 * One approved payment on the card, as the authorization path keeps them: `amount` in minor units, net of
 * what was reversed (a fully reversed authorization is 0 or absent), `at` its decision time (ISO 8601).
 * Refunds are not spend given back and do not belong here: a card could otherwise buy, refund and buy
 * again beyond its limit. Entries of 0 or less are ignored for the same reason.
 */
export interface SpendRecord {
  amount: number;
  at: string;
}

/** The payment being decided: minor units, the merchant's MCC, the decision time (ISO 8601). */
export interface AuthorizationToEvaluate {
  amount: number;
  merchantMcc: string;
  at: string;
}

/** The setting that declined: a list of the controls or the interval of the limit. */
export type FailedControl = 'blockedMccGroups' | 'blockedMccs' | 'allowedMccs' | SpendingLimitInterval;

export type ControlsDecision =
  { ok: true } | { ok: false; reason: 'failedControl'; control: FailedControl; detail: string };

const usd = (minor: number) => `${fromMinorUnits(minor)} USD`;

/**
 * Whether `authorization` passes the card's `controls`, given its earlier approved payments. The MCC
 * restrictions come first (no limit change would let a restricted merchant through, so that is the reason
 * to report), then the limits from the narrowest interval to all time. Window limits count the payments
 * whose decision time falls in the same UTC window as the authorization's, plus the authorization itself;
 * an amount exactly at a limit passes.
 */
export function evaluateControls(
  controls: SpendingControls,
  spendHistory: readonly SpendRecord[],
  authorization: AuthorizationToEvaluate,
): ControlsDecision {
  const decline = (control: FailedControl, detail: string): ControlsDecision => ({
    ok: false,
    reason: 'failedControl',
    control,
    detail,
  });
  const { amount, merchantMcc: mcc } = authorization;

  const group = controls.blockedMccGroups.find((name) => mccGroupHolds(name, mcc));
  if (group) return decline('blockedMccGroups', `MCC ${mcc} is in the blocked group ${group}`);
  if (controls.blockedMccs.includes(mcc)) return decline('blockedMccs', `MCC ${mcc} is blocked`);
  if (controls.allowedMccs.length > 0 && !controls.allowedMccs.includes(mcc)) {
    return decline('allowedMccs', `MCC ${mcc} is not in the allowed MCCs`);
  }

  const at = instant(authorization.at, 'authorization.at');
  const limits = [...controls.limits].sort(
    (a, b) => SPENDING_LIMIT_INTERVALS.indexOf(a.interval) - SPENDING_LIMIT_INTERVALS.indexOf(b.interval),
  );
  // Each record's time is read once, however many window limits count it.
  let spends: readonly { amount: number; at: number }[] | undefined;
  for (const { interval, amount: limit } of limits) {
    if (interval === 'per_authorization') {
      if (amount > limit) {
        return decline(interval, `${usd(amount)} exceeds the per-authorization limit of ${usd(limit)}`);
      }
      continue;
    }
    const window = windowOf(interval, at);
    spends ??= spendHistory
      .filter((record) => record.amount > 0)
      .map((record) => ({ amount: record.amount, at: instant(record.at, 'spendHistory.at') }));
    let spent = 0;
    for (const record of spends) {
      if (record.at >= window.start && record.at < window.end) spent += record.amount;
      // Stop once over: the sum then stays below twice the bound, an exact integer however long the history.
      if (spent > limit) break;
    }
    if (spent + amount > limit) {
      const scope = interval === 'all_time' ? 'all-time' : interval;
      return decline(
        interval,
        `${usd(amount)} with ${usd(Math.min(spent, limit))}${spent > limit ? ' or more' : ''} already spent ` +
          `exceeds the ${scope} limit of ${usd(limit)}`,
      );
    }
  }
  return { ok: true };
}

// The times come from the platform's own records; an unreadable one is a bug, and failing loudly beats
// counting it in no window (which would let spending through).
function instant(iso: string, what: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`${what} is not a timestamp: ${iso}`);
  return ms;
}
