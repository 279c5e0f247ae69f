import { RESTRICTED_MCC_GROUPS, type MccGroupName } from './mcc-groups';
import { WINDOW_INTERVALS } from './spending-windows';

// ---------------------------------------------------------------------------------------------------
// A card's spending controls (API-DECISIONS, "Cards"): what they hold and the program's defaults. They are
// in the contract, with `evaluateControls`, because the authorizations context decides on them; the one
// validation of an update stays in the cards domain (`parseSpendingControls`).
// Amounts are integers of the platform's minor units (10^-6 USD: 1 USDC settles 1 USD, money.ts in the
// wallets contract), so a limit compares with the wallet's holds without conversion.
// ---------------------------------------------------------------------------------------------------

export const SPENDING_LIMIT_INTERVALS = ['per_authorization', ...WINDOW_INTERVALS] as const;
export type SpendingLimitInterval = (typeof SPENDING_LIMIT_INTERVALS)[number];

export interface SpendingLimit {
  /** Minor units, positive, at most MAX_MINOR_UNITS. */
  amount: number;
  interval: SpendingLimitInterval;
}

export interface SpendingControls {
  /** At most one limit per interval; every limit applies, so the tightest one decides. */
  limits: SpendingLimit[];
  blockedMccGroups: MccGroupName[];
  blockedMccs: string[];
  /** When not empty, only these MCCs pass (Stripe's `allowed_categories`): empty means no allow list. */
  allowedMccs: string[];
}

/** What a card gets when its controls are not set: no limits, the restricted groups blocked (fact 6). */
export const PROGRAM_DEFAULT_SPENDING_CONTROLS: SpendingControls = Object.freeze({
  limits: [],
  blockedMccGroups: [...RESTRICTED_MCC_GROUPS],
  blockedMccs: [],
  allowedMccs: [],
});
