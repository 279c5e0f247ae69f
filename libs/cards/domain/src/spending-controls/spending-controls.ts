import { DomainError, type ApiFieldError } from '@cip/shared/contracts';
import { amountTooLarge, MAX_MINOR_UNITS } from '@cip/wallets/contract';
import {
  isMcc,
  isMccGroupName,
  MCC_GROUP_NAMES,
  mccGroupHolds,
  PROGRAM_DEFAULT_SPENDING_CONTROLS,
  SPENDING_LIMIT_INTERVALS,
  type SpendingControls,
  type SpendingControlsUpdate,
  type SpendingLimit,
  type SpendingLimitInterval,
} from '@cip/cards/contract';

// ---------------------------------------------------------------------------------------------------
// The one validation of a card's spending controls update (`PUT /v1/cards/{id}/spending-controls` replaces
// them whole). What the controls hold, the program's defaults and `evaluateControls` are in
// `@cip/cards/contract` (the authorizations context decides on them).
// Amounts are integers of the platform's minor units (10^-6 USD: 1 USDC settles 1 USD, money.ts in the
// wallets contract), so a limit compares with the wallet's holds without conversion.
// ---------------------------------------------------------------------------------------------------

/** The body of a controls update as it arrives (the contract's); every field is checked, whatever its declared type. */
export type { SpendingControlsUpdate };

// Bounds the card snapshot every card event carries; no scheme assigns anywhere near this many codes to one
// kind of merchant.
export const MAX_MCCS_PER_LIST = 500;

/**
 * A controls update as the controls it sets, or a DomainError: `amount_too_large` (422) for a limit beyond
 * MAX_MINOR_UNITS, as for every amount of the API, else `validation_error` (400) listing every failing field
 * (`limits.1.interval`, `allowedMccs.0`, ...). Nothing about the card changes when it throws.
 *
 * Not refused: a window limit below the per-authorization limit (or a daily limit above the monthly one).
 * Every limit applies and the tightest decides, and refusing would force a distributor who lowers one limit
 * for a while to rewrite the others.
 */
export function parseSpendingControls(
  update: SpendingControlsUpdate,
  defaults: SpendingControls = PROGRAM_DEFAULT_SPENDING_CONTROLS,
): SpendingControls {
  if (typeof update !== 'object' || update === null || Array.isArray(update)) {
    throw new DomainError('validation_error', 'Spending controls must be an object');
  }
  // First, as everywhere amounts enter: an amount beyond the bound is too large, whatever else is wrong.
  const tooLarge = Array.isArray(update.limits)
    ? update.limits.findIndex((limit) => typeof limit?.amount === 'number' && limit.amount > MAX_MINOR_UNITS)
    : -1;
  if (tooLarge >= 0) {
    const field = `limits.${tooLarge}.amount`;
    throw amountTooLarge(`${field} exceeds the largest amount`, field);
  }
  const errors: ApiFieldError[] = [];
  const refuse = (field: string, message: string) => errors.push({ field, message });
  const limits = parseLimits(update.limits, refuse);
  const blockedMccGroups =
    update.blockedMccGroups === undefined
      ? [...defaults.blockedMccGroups]
      : parseList(update.blockedMccGroups, 'blockedMccGroups', isMccGroupName, groupNames, refuse);
  const blockedMccs = parseList(update.blockedMccs ?? [], 'blockedMccs', isMcc, MCC_FORMAT, refuse);
  const allowedMccs = parseList(update.allowedMccs ?? [], 'allowedMccs', isMcc, MCC_FORMAT, refuse);

  if (blockedMccs.length > 0 && allowedMccs.length > 0) {
    refuse('allowedMccs', 'cannot be set together with blockedMccs: set one list, not both');
  }
  // An allowed MCC that a blocked group still declines is a contradiction the distributor should hear about.
  allowedMccs.forEach((mcc, index) => {
    const group = blockedMccGroups.find((name) => mccGroupHolds(name, mcc));
    if (group) refuse(`allowedMccs.${index}`, `${mcc} is in the blocked group ${group}`);
  });

  if (errors.length > 0) {
    throw new DomainError(
      'validation_error',
      `Invalid spending controls: ${errors[0].field} ${errors[0].message}`,
      errors,
    );
  }
  return { limits, blockedMccGroups, blockedMccs, allowedMccs };
}

type Refuse = (field: string, message: string) => void;

const MCC_FORMAT = 'must be a merchant category code: 4 digits, as ISO 18245 assigns them';
const groupNames = `must be one of ${MCC_GROUP_NAMES.join(', ')}`;

function parseLimits(value: unknown, refuse: Refuse): SpendingLimit[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    refuse('limits', 'must be an array of {amount, interval}');
    return [];
  }
  const seen = new Set<string>();
  const limits: SpendingLimit[] = [];
  value.forEach((limit: unknown, index) => {
    if (typeof limit !== 'object' || limit === null || Array.isArray(limit)) {
      refuse(`limits.${index}`, 'must be an object {amount, interval}');
      return;
    }
    const { amount, interval } = limit as Record<string, unknown>;
    let valid = true;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) {
      refuse(`limits.${index}.amount`, 'must be a positive integer of minor units');
      valid = false;
    }
    if (!SPENDING_LIMIT_INTERVALS.includes(interval as SpendingLimitInterval)) {
      refuse(`limits.${index}.interval`, `must be one of ${SPENDING_LIMIT_INTERVALS.join(', ')}`);
      valid = false;
    } else if (seen.has(interval as string)) {
      refuse(`limits.${index}.interval`, `${String(interval)} already has a limit: one limit per interval`);
      valid = false;
    }
    seen.add(interval as string);
    if (valid) limits.push({ amount: amount as number, interval: interval as SpendingLimitInterval });
  });
  return limits;
}

function parseList<T extends string>(
  value: unknown,
  field: string,
  accepts: (item: unknown) => item is T,
  expected: string,
  refuse: Refuse,
): T[] {
  if (!Array.isArray(value)) {
    refuse(field, 'must be an array');
    return [];
  }
  if (value.length > MAX_MCCS_PER_LIST) {
    refuse(field, `must hold at most ${MAX_MCCS_PER_LIST} entries`);
    return [];
  }
  const items: T[] = [];
  value.forEach((item: unknown, index) => {
    if (!accepts(item)) refuse(`${field}.${index}`, `${JSON.stringify(item) ?? String(item)} ${expected}`);
    else if (items.includes(item)) refuse(`${field}.${index}`, `${item} is listed twice`);
    else items.push(item);
  });
  return items;
}
