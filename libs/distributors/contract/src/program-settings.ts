import {
  FEE_FRACTION_ONE,
  programAuthorization,
  programAuthorizationProblems,
} from '@cip/authorizations/contract';
import type { ProgramAuthorization, ProgramRules, ProgramThreeDs } from '@cip/shared/contracts';
import { THREE_DS_DEADLINE_RANGE_SECONDS } from '@cip/three-ds/contract';

// ---------------------------------------------------------------------------------------------------
// A program's settings as operators write them: `cli distributors configure` (flags) and the operator API
// (`PATCH /operator/v1/distributors/{id}/program`) parse the same texts here and apply the same changes.
// Units of the fees are the spec's `fee` object's: integers in 6 implied decimals (value x 1,000,000). The
// parsers check the form of a value; the ranges (100%, 1..30 days, ISO 4217, address checksum) are the
// authorizations contract's `programAuthorizationProblems`, the very rules the distributor decider applies.
// ---------------------------------------------------------------------------------------------------

/** A setting written wrong: what the CLI shows after the flag, what the operator API puts in `details`. */
export class ProgramSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProgramSettingError';
  }
}

/** A whole set of changes that would make the program invalid: every problem, by field of the settings. */
export class ProgramSettingsInvalid extends Error {
  constructor(readonly problems: { field: string; message: string }[]) {
    super(problems.map((p) => `${p.field} ${p.message}`).join('; '));
    this.name = 'ProgramSettingsInvalid';
  }
}

const USD_DECIMALS = 6;
const PERCENT_DECIMALS = 4; // 6 implied decimals of a fraction are 4 decimals of a percent

const notNegative = (value: string) => {
  if (value.trim().startsWith('-')) throw new ProgramSettingError('Must not be negative.');
};

/** `FR`, `de`: ISO 3166-1 alpha-2 codes, upper-cased and without duplicates; at least one. */
export function parseCountries(values: readonly string[]): string[] {
  const codes = values.map((code) => code.trim().toUpperCase()).filter((code) => code !== '');
  const invalid = codes.filter((code) => !/^[A-Z]{2}$/.test(code));
  if (invalid.length || codes.length === 0) {
    throw new ProgramSettingError('Takes ISO 3166-1 alpha-2 codes such as FR,DE.');
  }
  return [...new Set(codes)];
}

/** `2%`, `0.25%` or `20000` (6 implied decimals of a fraction): the fraction in 6 implied decimals. */
export function parseFraction(value: string): number {
  notNegative(value);
  const percent = /^(\d+)(?:\.(\d+))?%$/.exec(value.trim());
  if (percent) {
    const decimals = percent[2] ?? '';
    if (decimals.length > PERCENT_DECIMALS) {
      throw new ProgramSettingError(
        'Takes at most 4 decimals in a percent (0.0001% is 1 in 6 implied decimals).',
      );
    }
    return Number(percent[1]) * (FEE_FRACTION_ONE / 100) + Number(decimals.padEnd(PERCENT_DECIMALS, '0'));
  }
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  throw new ProgramSettingError(
    'Takes a percent (2%, 0.25%) or a whole number in 6 implied decimals (20000 is 2%).',
  );
}

/** `2.50USD` or `2500000` (6 implied decimals of USD): the amount in 6 implied decimals. */
export function parseUsdAmount(value: string): number {
  notNegative(value);
  const usd = /^(\d+)(?:\.(\d+))?\s*USD$/i.exec(value.trim());
  if (usd) {
    const decimals = usd[2] ?? '';
    if (decimals.length > USD_DECIMALS) throw new ProgramSettingError('Takes at most 6 decimals of USD.');
    return Number(`${usd[1]}${decimals.padEnd(USD_DECIMALS, '0')}`);
  }
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  throw new ProgramSettingError(
    'Takes USD (2.50USD) or a whole number in 6 implied decimals (2500000 is 2.50 USD).',
  );
}

/** A rate of `currency` in USD per unit (`1.08`), or `none` to remove it: the rate, or null. */
export function parseFxRateValue(currency: string, rate: string): string | null {
  const value = rate.trim();
  if (value === 'none') return null;
  notNegative(value);
  const decimal = /^\d+(?:\.(\d+))?$/.exec(value);
  if (!decimal)
    throw new ProgramSettingError(`The rate of ${currency} is a decimal number of USD, such as 1.08.`);
  if ((decimal[1] ?? '').length > 12) throw new ProgramSettingError('Takes at most 12 decimals in a rate.');
  return value;
}

/** `EUR=1.08` (or `EUR=none`): the rates given so far with this one. */
export function parseFxRate(
  value: string,
  previous: Record<string, string | null> = {},
): Record<string, string | null> {
  const match = /^([A-Za-z]+)=(.*)$/.exec(value.trim());
  if (!match) {
    throw new ProgramSettingError(
      'Takes CUR=rate, USD per unit of CUR (EUR=1.08), or CUR=none to remove it.',
    );
  }
  const currency = match[1].toUpperCase();
  return { ...previous, [currency]: parseFxRateValue(currency, match[2]) };
}

/**
 * `3m` or `90s`: how long a 3DS challenge waits for the distributor's answer, 1 to 10 minutes; in whole
 * seconds.
 */
export function parseThreeDsDeadline(value: string): number {
  const match = /^(\d{1,4})(m|s)$/.exec(value.trim());
  const seconds = match ? Number(match[1]) * (match[2] === 'm' ? 60 : 1) : NaN;
  const { min, max } = THREE_DS_DEADLINE_RANGE_SECONDS;
  if (!(seconds >= min && seconds <= max)) {
    throw new ProgramSettingError('give a duration from 1m to 10m, in minutes (3m) or seconds (90s)');
  }
  return seconds;
}

/** Changes of a program's card authorization settings, parsed; absent: unchanged. */
export interface AuthorizationChanges {
  feeFx?: number;
  feeAtm?: number;
  feeAuth?: number;
  /** Rates by currency; null removes one. */
  fxRate?: Record<string, string | null>;
  clearingTolerance?: number;
  holdExpiryDays?: number;
  /** An address, or `none` (or null) to remove it. */
  settlementAddress?: string | null;
}

/** Changes of a program (`distributors configure`, `PATCH .../program`), parsed; absent: unchanged. */
export interface ProgramChanges extends AuthorizationChanges {
  countries?: string[];
  b2b?: boolean;
  prepaid?: boolean;
  kycImport?: boolean;
  threeDsDeadlineSeconds?: number;
}

const AUTHORIZATION_KEYS = [
  'feeFx',
  'feeAtm',
  'feeAuth',
  'fxRate',
  'clearingTolerance',
  'holdExpiryDays',
  'settlementAddress',
] as const;

/** Whether any change of the authorization settings is given. */
export const changesAuthorization = (changes: AuthorizationChanges): boolean =>
  AUTHORIZATION_KEYS.some((key) => changes[key] !== undefined);

/**
 * The program's authorization settings with the changes applied (null when none is given); throws
 * `ProgramSettingsInvalid` naming every problem (by field of the settings: `fees.fx`, `fxRates.EUR`, ...).
 */
export function changedAuthorization(
  program: ProgramRules,
  changes: AuthorizationChanges,
): ProgramAuthorization | null {
  if (!changesAuthorization(changes)) return null;
  const current = programAuthorization(program);
  const fxRates: Record<string, string> = { ...current.fxRates };
  for (const [currency, rate] of Object.entries(changes.fxRate ?? {})) {
    if (rate === null) delete fxRates[currency];
    else fxRates[currency] = rate;
  }
  const next: ProgramAuthorization = {
    fees: {
      fx: changes.feeFx ?? current.fees.fx,
      atm: changes.feeAtm ?? current.fees.atm,
      auth: changes.feeAuth ?? current.fees.auth,
    },
    fxRates,
    clearingTolerance: changes.clearingTolerance ?? current.clearingTolerance,
    holdExpiryDays: changes.holdExpiryDays ?? current.holdExpiryDays,
    settlementAddress:
      changes.settlementAddress === undefined
        ? current.settlementAddress
        : changes.settlementAddress === null || changes.settlementAddress === 'none'
          ? null
          : changes.settlementAddress,
  };
  const problems = programAuthorizationProblems(next);
  if (problems.length > 0) throw new ProgramSettingsInvalid(problems);
  return next;
}

/**
 * What a program becomes with the changes: the fields they set, the authorization settings recomputed from
 * the program's current ones. Empty when nothing is given.
 */
export function programUpdate(
  program: ProgramRules,
  changes: ProgramChanges,
): Partial<Omit<ProgramRules, 'threeDs'>> & { threeDs?: ProgramThreeDs } {
  const update: Partial<ProgramRules> = {};
  if (changes.countries) update.allowedCountries = changes.countries;
  if (changes.b2b !== undefined) update.b2b = changes.b2b;
  if (changes.prepaid !== undefined) update.prepaid = changes.prepaid;
  if (changes.kycImport !== undefined) update.kycImportEnabled = changes.kycImport;
  if (changes.threeDsDeadlineSeconds !== undefined)
    update.threeDs = { challengeDeadlineSeconds: changes.threeDsDeadlineSeconds };
  const authorization = changedAuthorization(program, changes);
  if (authorization) update.authorization = authorization;
  return update;
}
